// Reads the .npy files NumPy wrote (tests/io/data, made by make_npy_data.py there) and checks that
// lazax writes byte-identical files.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "lazax/io/npy.h"

namespace lazax {
namespace {

std::string data_path(const std::string& name) {
  return std::string(LAZAX_NPY_TEST_DATA) + "/" + name;
}

std::vector<uint8_t> file_bytes(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::vector<double> kX = {-1.875, -1.125, -0.375, 0.375, 1.125, 1.875};

TEST(NpyFromNumpy, ReadsEveryDType) {
  Literal f32 = read_npy(data_path("f32_2x3.npy"));
  EXPECT_EQ(f32.type.str(), "f32[2,3]");
  EXPECT_EQ(f32.to_vector<double>(), kX);
  Literal f64 = read_npy(data_path("f64_2x3_v2.npy"));
  EXPECT_EQ(f64.type.str(), "f64[2,3]");
  EXPECT_EQ(f64.to_vector<double>(), kX);
  Literal f16 = read_npy(data_path("f16_4.npy"));
  EXPECT_EQ(f16.type.str(), "f16[4]");
  std::vector<double> h = f16.to_vector<double>();
  EXPECT_EQ(h[0], 0.5);
  EXPECT_EQ(h[1], -2.0);
  EXPECT_EQ(h[2], 65504.0);
  EXPECT_EQ(h[3], 1.1920928955078125e-07);  // 1e-7 rounds to the subnormal 2 * 2^-24
  Literal i32 = read_npy(data_path("i32_3x2.npy"));
  EXPECT_EQ(i32.type.str(), "i32[3,2]");
  EXPECT_EQ(i32.to_vector<int64_t>(),
            (std::vector<int64_t>{1, -2, 3, -4, 2147483647, -2147483648LL}));
  Literal i64 = read_npy(data_path("i64_3_v3.npy"));
  EXPECT_EQ(i64.type.str(), "i64[3]");
  EXPECT_EQ(i64.data<int64_t>()[2], int64_t{1} << 40);
  Literal u8 = read_npy(data_path("u8_2x2.npy"));
  EXPECT_EQ(u8.type.str(), "u8[2,2]");
  EXPECT_EQ(u8.to_vector<int>(), (std::vector<int>{0, 1, 254, 255}));
  Literal i8 = read_npy(data_path("i8_4.npy"));
  EXPECT_EQ(i8.type.str(), "i8[4]");
  EXPECT_EQ(i8.to_vector<int>(), (std::vector<int>{-128, -1, 0, 127}));
  Literal u32 = read_npy(data_path("u32_3.npy"));
  EXPECT_EQ(u32.type.str(), "u32[3]");
  EXPECT_EQ(u32.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 4294967295LL}));
  Literal b = read_npy(data_path("bool_5.npy"));
  EXPECT_EQ(b.type.str(), "bool[5]");
  EXPECT_EQ(b.to_vector<int>(), (std::vector<int>{1, 0, 0, 1, 1}));
  Literal s = read_npy(data_path("f64_scalar.npy"));
  EXPECT_EQ(s.type.str(), "f64[]");
  EXPECT_EQ(s.at(0), 3.25);
  Literal e = read_npy(data_path("f32_empty_0x3.npy"));
  EXPECT_EQ(e.type.str(), "f32[0,3]");
}

TEST(NpyFromNumpy, RefusesWhatItCannotRepresent) {
  EXPECT_THROW(read_npy(data_path("f32_big_endian.npy")), IOError);
  EXPECT_THROW(read_npy(data_path("f64_fortran_2x3.npy")), IOError);
  try {
    read_npy(data_path("i16_3.npy"));
    FAIL();
  } catch (const IOError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("i16_3.npy"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unsupported dtype '<i2'"), std::string::npos) << msg;
  }
}

TEST(NpyFromNumpy, EncodesByteIdenticalToNumpySave) {
  for (const char* name : {"f32_2x3.npy", "f16_4.npy", "i32_3x2.npy", "u8_2x2.npy", "bool_5.npy",
                           "f64_scalar.npy", "f32_empty_0x3.npy", "i8_4.npy", "u32_3.npy"}) {
    std::vector<uint8_t> expected = file_bytes(name);
    ASSERT_FALSE(expected.empty()) << name;
    EXPECT_EQ(encode_npy(parse_npy(expected, name)), expected) << name;
  }
}

}  // namespace
}  // namespace lazax
