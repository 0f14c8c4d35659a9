// safetensors: round trips of every dtype, the byte layout, and a corpus of malformed and hostile
// files that must each raise IOError naming the file and the problem (never crash or read out of
// bounds: this suite also runs under ASan/UBSan).
#include "lazax/io/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "lazax/io/file.h"

namespace lazax {
namespace {

namespace fs = std::filesystem;

constexpr DType kTypes[] = {DType::f32, DType::f64, DType::f16,     DType::bf16, DType::i32,
                            DType::i64, DType::u8,  DType::boolean, DType::i8,   DType::u32};

// Distinct values that every dtype holds exactly (negative ones, except for u8, u32 and bool;
// i8 and u32 span their whole range, extremes included).
Literal sample(DType t, const Shape& shape, int salt = 0) {
  Literal l = Literal::zeros(TensorType{t, shape});
  for (int64_t i = 0; i < l.numel(); ++i) {
    const double v = static_cast<double>((i * 7 + salt) % 11) - 4.5;
    dispatch_dtype(t, [&]<class T>() {
      if constexpr (std::is_same_v<T, bool>) {
        l.data<T>()[i] = (i + salt) % 3 == 1;
      } else if constexpr (std::is_same_v<T, uint8_t>) {
        l.data<T>()[i] = static_cast<uint8_t>((i * 37 + salt) % 256);
      } else if constexpr (std::is_same_v<T, int8_t>) {
        l.data<T>()[i] = static_cast<int8_t>((i * 37 + salt) % 256 - 128);
      } else if constexpr (std::is_same_v<T, uint32_t>) {
        l.data<T>()[i] = UINT32_MAX - static_cast<uint32_t>((i * 1000003 + salt) % 4000000);
      } else if constexpr (std::is_integral_v<T>) {
        l.data<T>()[i] = static_cast<T>(v * 2 - 1000);
      } else {
        l.data<T>()[i] = T(v);
      }
    });
  }
  return l;
}

// A file of the given header text (unpadded) and data bytes.
std::vector<uint8_t> make_file(const std::string& header, const std::vector<uint8_t>& data = {},
                               std::optional<uint64_t> stated_len = std::nullopt) {
  const uint64_t len = stated_len.value_or(header.size());
  std::vector<uint8_t> out;
  for (size_t i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void expect_io_error(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  try {
    parse_safetensors(bytes, "bad.safetensors");
    ADD_FAILURE() << "no error; expected one mentioning: " << fragment;
  } catch (const IOError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[safetensors] bad.safetensors: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos)
        << "message: " << msg << "\nwanted: " << fragment;
  }
}

TEST(Safetensors, EveryDTypeRoundTripsInOrderWithMetadata) {
  SafetensorsFile f;
  int salt = 0;
  for (DType t : kTypes) {
    for (const Shape& s : {Shape{}, Shape{3}, Shape{2, 0, 4}, Shape{5, 3}})
      f.tensors.emplace_back("z." + std::string(dtype_name(t)) + s.str(), sample(t, s, ++salt));
  }
  f.metadata = {{"step", "12"}, {"data_position", "3456"}, {"a", ""}};
  const std::vector<uint8_t> bytes = encode_safetensors(f);
  const SafetensorsFile g = parse_safetensors(bytes, "mem");
  ASSERT_EQ(g.tensors.size(), f.tensors.size());
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    EXPECT_EQ(g.tensors[i].first, f.tensors[i].first);
    EXPECT_TRUE(g.tensors[i].second.bit_equal(f.tensors[i].second)) << f.tensors[i].first;
  }
  EXPECT_EQ(g.metadata, f.metadata);
  EXPECT_EQ(g.meta("step"), "12");
  EXPECT_EQ(g.meta("nope"), std::nullopt);
  ASSERT_NE(g.find("z.i64[5,3]"), nullptr);
  EXPECT_EQ(g.find("missing"), nullptr);
}

TEST(Safetensors, LayoutIsTheFormats) {
  SafetensorsFile f;
  f.tensors.emplace_back("w", Literal::from_vector<float>({1.5f, -2.0f}, Shape{2}));
  f.tensors.emplace_back("b", Literal::from_vector<bool>({true, false, true}, Shape{3}));
  f.metadata = {{"k", "v"}};
  const std::vector<uint8_t> bytes = encode_safetensors(f);
  uint64_t len = 0;
  std::memcpy(&len, bytes.data(), 8);
  EXPECT_EQ((8 + len) % 8, 0u);  // the data starts 8-byte aligned
  std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<ptrdiff_t>(len));
  while (!header.empty() && header.back() == ' ') header.pop_back();
  EXPECT_EQ(header,
            R"({"__metadata__":{"k":"v"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
            R"("b":{"dtype":"BOOL","shape":[3],"data_offsets":[8,11]}})");
  ASSERT_EQ(bytes.size(), 8 + len + 11);
  float w[2];
  std::memcpy(w, bytes.data() + 8 + len, 8);
  EXPECT_EQ(w[0], 1.5f);
  EXPECT_EQ(w[1], -2.0f);
  EXPECT_EQ(bytes[8 + len + 8], 1);
  EXPECT_EQ(bytes[8 + len + 9], 0);
}

TEST(Safetensors, ReadsPaddingAnyOffsetOrderAndNonzeroBools) {
  // Data in the reverse order of the header, trailing spaces after the JSON, bool byte 7.
  std::vector<uint8_t> data = {7, 0, 0, 0, 0, 0, 0x80, 0x3f};
  auto bytes = make_file(R"({"b":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]},)"
                         R"("a":{"dtype":"F32","shape":[],"data_offsets":[4,8]},)"
                         R"("p":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}   )",
                         data);
  SafetensorsFile f = parse_safetensors(bytes, "mem");
  ASSERT_EQ(f.tensors.size(), 3u);
  EXPECT_EQ(f.tensors[0].first, "b");
  EXPECT_EQ(f.tensors[0].second.to_vector<int>(), (std::vector<int>{1, 0}));
  EXPECT_EQ(f.tensors[1].second.to_vector<float>(), (std::vector<float>{1.0f}));
  EXPECT_TRUE(f.metadata.empty());
}

TEST(Safetensors, WriterRefusesBadNames) {
  SafetensorsFile f;
  f.tensors.emplace_back("a", Literal::scalar(1.0f));
  f.tensors.emplace_back("a", Literal::scalar(2.0f));
  EXPECT_THROW(encode_safetensors(f), ValueError);
  f.tensors[1].first = "__metadata__";
  EXPECT_THROW(encode_safetensors(f), ValueError);
  f.tensors[1].first = "";
  EXPECT_THROW(encode_safetensors(f), ValueError);
  f.tensors.pop_back();
  f.metadata = {{"k", "1"}, {"k", "2"}};
  EXPECT_THROW(encode_safetensors(f), ValueError);
}

TEST(Safetensors, HostileFilesAreClearErrors) {
  const std::vector<uint8_t> four(4, 0);
  const std::string f32_1 = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  expect_io_error({}, "truncated: 0 bytes");
  expect_io_error({1, 2, 3}, "truncated: 3 bytes");
  expect_io_error(make_file(f32_1, four, uint64_t{1} << 62), "over the 100000000-byte limit");
  expect_io_error(make_file(f32_1, four, UINT64_MAX), "over the 100000000-byte limit");
  expect_io_error(make_file(f32_1, four, 5000), "header length says 5000 bytes but only 58 follow");
  expect_io_error(make_file(""), "must be a JSON object starting with '{'");
  expect_io_error(make_file("[1]"), "must be a JSON object starting with '{'");
  expect_io_error(make_file("{\"a\": "), "bad header JSON");
  expect_io_error(make_file("{\"a\":1} x"), "bad header JSON");
  expect_io_error(make_file("{\"\xff\":1}"), "bad header JSON");
  expect_io_error(make_file("{" + std::string(100000, '[')), "nested more than 8 deep");
  expect_io_error(make_file(R"({"a":1,"a":2})"), "the key 'a' appears twice");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","dtype":"F32"}})"), "'dtype' appears twice");
  expect_io_error(make_file(R"({"a":5})"), "tensor 'a' must be an object");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1]}})"), "has no 'data_offsets'");
  expect_io_error(make_file(R"({"a":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}})", four),
                  "unknown dtype 'Q7' of tensor 'a'");
  expect_io_error(make_file(R"({"a":{"dtype":"I16","shape":[2],"data_offsets":[0,4]}})", four),
                  "unsupported dtype 'I16'");
  expect_io_error(make_file(R"({"a":{"dtype":3,"shape":[1],"data_offsets":[0,4]}})", four),
                  "dtype must be a string");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four),
                  "tensor 'a' shape[0] is negative");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", four),
                  "must be a non-negative integer");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":{},"data_offsets":[0,4]}})", four),
                  "shape must be an array");
  expect_io_error(
      make_file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})",
                four),
      "too large");
  expect_io_error(
      make_file(R"({"a":{"dtype":"I64","shape":[2305843009213693952],"data_offsets":[0,4]}})",
                four),
      "too large (its byte count overflows)");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four),
                  "shape [2] of F32 needs 8 bytes but data_offsets [0,4] hold 4");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", four),
                  "end before they begin");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", four),
                  "data_offsets must be [begin, end]");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", four),
                  "go past the end of the data (4 bytes");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1],)"
                            R"("data_offsets":[18446744073709551612,18446744073709551616]}})",
                            four),
                  "must be a non-negative integer");
  expect_io_error(make_file(f32_1, {0, 0}),
                  "go past the end of the data (2 bytes after the header; truncated?)");
  expect_io_error(make_file(f32_1, std::vector<uint8_t>(6, 0)),
                  "the tensors cover 4 bytes of data but 6 follow");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                            R"("b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})",
                            std::vector<uint8_t>(6, 0)),
                  "tensor 'b': data_offsets [2, 6) overlap those of tensor 'a' [0, 4)");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                            R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                            four),
                  "overlap");
  expect_io_error(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
                            std::vector<uint8_t>(6, 0)),
                  "bytes [0, 2) of the data belong to no tensor");
  expect_io_error(make_file(R"({"__metadata__":{"k":1}})"), "value of 'k' must be a string");
  expect_io_error(make_file(R"({"__metadata__":[]})"), "__metadata__ must be an object");
}

TEST(Safetensors, EveryPrefixOfAGoodFileIsAnError) {
  SafetensorsFile f;
  f.tensors.emplace_back("w", sample(DType::f32, Shape{3, 2}));
  f.tensors.emplace_back("m", sample(DType::boolean, Shape{5}));
  f.metadata = {{"step", "3"}};
  const std::vector<uint8_t> bytes = encode_safetensors(f);
  for (size_t k = 0; k < bytes.size(); ++k) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(k));
    EXPECT_THROW(parse_safetensors(cut, "cut"), IOError) << "prefix of " << k << " bytes";
  }
  // Every single-byte corruption either parses or is an IOError (ASan checks the reads).
  for (size_t k = 0; k < bytes.size(); ++k) {
    for (uint8_t v : {uint8_t{0}, uint8_t{'9'}, uint8_t{'"'}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = bytes;
      bad[k] = v;
      try {
        parse_safetensors(bad, "corrupt");
      } catch (const IOError&) {
      }
    }
  }
}

class SafetensorsFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lazax_safetensors_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(SafetensorsFiles, WriteReadAndFileErrors) {
  SafetensorsFile f;
  f.tensors.emplace_back("x", sample(DType::bf16, Shape{4, 3}));
  f.metadata = {{"step", "7"}};
  write_safetensors(path("a.safetensors"), f);
  const SafetensorsFile g = read_safetensors(path("a.safetensors"));
  ASSERT_EQ(g.tensors.size(), 1u);
  EXPECT_TRUE(g.tensors[0].second.bit_equal(f.tensors[0].second));
  EXPECT_EQ(g.metadata, f.metadata);

  auto expect_error = [](auto&& fn, const std::string& fragment) {
    try {
      fn();
      ADD_FAILURE() << "no error; expected: " << fragment;
    } catch (const IOError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error([&] { read_safetensors(path("missing.safetensors")); },
               "[safetensors] " + path("missing.safetensors") + ": cannot open");
  expect_error([&] { read_safetensors(dir_.string()); }, "is a directory");
  expect_error([&] { read_safetensors("/dev/zero"); }, "/dev/zero: is not a regular file");
  expect_error([&] { write_safetensors(path("no/such/dir/x.safetensors"), f); },
               "x.safetensors: cannot create a temporary file");
  { std::ofstream(path("short.safetensors"), std::ios::binary).write("\x10\x00", 2); }
  expect_error([&] { read_safetensors(path("short.safetensors")); },
               "short.safetensors: truncated: 2 bytes");
}

}  // namespace
}  // namespace lazax
