// .npy encoding round trips, file writing, and a corpus of broken files that must each raise
// IOError naming the file and the problem (never crash: this suite also runs under ASan/UBSan).
#include "lazax/io/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace lazax {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// A .npy file with the given header text (padded as numpy does) and data bytes.
std::vector<uint8_t> make_npy(const std::string& dict, const std::vector<uint8_t>& data,
                              int major = 1) {
  std::string header = dict;
  size_t len_bytes = major == 1 ? 2 : 4;
  while ((8 + len_bytes + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < len_bytes; ++i)
    out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}
std::string dict(const std::string& descr, const std::string& shape,
                 const std::string& order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

void expect_io_error(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  try {
    parse_npy(bytes, "broken.npy");
    ADD_FAILURE() << "no error; expected one mentioning: " << fragment;
  } catch (const IOError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[npy] broken.npy: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos)
        << "message: " << msg << "\nwanted: " << fragment;
  }
}

Literal sample(DType t, const Shape& shape) {
  Literal l = Literal::zeros(TensorType{t, shape});
  for (int64_t i = 0; i < l.numel(); ++i) {
    double v = static_cast<double>(i * 7 % 11) - 4.5;
    dispatch_dtype(t, [&]<class T>() {
      if constexpr (std::is_same_v<T, bool>) {
        l.data<T>()[i] = (i % 3) == 1;
      } else if constexpr (std::is_same_v<T, uint8_t>) {
        l.data<T>()[i] = static_cast<uint8_t>(i * 37 % 256);
      } else if constexpr (std::is_same_v<T, uint32_t>) {
        l.data<T>()[i] = UINT32_MAX - static_cast<uint32_t>(i * 1000003);
      } else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
        l.data<T>()[i] = T(static_cast<float>(v));
      } else {
        l.data<T>()[i] = static_cast<T>(v);
      }
    });
  }
  return l;
}

const DType kNpyTypes[] = {DType::f32, DType::f64,     DType::f16, DType::i32, DType::i64,
                           DType::u8,  DType::boolean, DType::i8,  DType::u32};

TEST(Npy, RoundTripsEveryDTypeAndShape) {
  for (DType t : kNpyTypes) {
    for (const Shape& s :
         {Shape{}, Shape{0}, Shape{3}, Shape{2, 3, 4}, Shape{0, 3}, Shape{1, 1, 5}}) {
      Literal a = sample(t, s);
      std::vector<uint8_t> enc = encode_npy(a);
      EXPECT_EQ((enc.size() - a.type.bytes()) % 64, 0u) << "data should start 64-aligned";
      Literal b = parse_npy(enc, "mem.npy");
      EXPECT_TRUE(a.bit_equal(b)) << a.type.str() << ": " << a.str() << " vs " << b.str();
    }
  }
}

TEST(Npy, HeaderTextMatchesNumpy) {
  std::vector<uint8_t> enc = encode_npy(Literal::zeros({DType::f32, Shape{2, 3}}));
  std::string head(enc.begin() + 10, enc.begin() + 10 + 62);
  EXPECT_EQ(head.substr(0, 60),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + std::string(1, ' '));
  EXPECT_EQ(enc[6], 1);
  std::vector<uint8_t> s = encode_npy(Literal::scalar(true));
  std::string scalar(s.begin() + 10, s.end() - 1);
  EXPECT_EQ(scalar.substr(0, 55), "{'descr': '|b1', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(scalar.find_first_not_of(' ', 55), scalar.size() - 1);  // spaces, then '\n'
  EXPECT_EQ(scalar.back(), '\n');
}

TEST(Npy, VeryLongHeaderUsesVersion2) {
  Literal a = Literal::zeros({DType::i32, Shape(std::vector<int64_t>(30000, 1))});
  a.data<int32_t>()[0] = 42;
  std::vector<uint8_t> enc = encode_npy(a);
  EXPECT_EQ(enc[6], 2);
  EXPECT_TRUE(parse_npy(enc, "long.npy").bit_equal(a));
}

TEST(Npy, RefusesBf16WithAHint) {
  try {
    encode_npy(Literal::zeros({DType::bf16, Shape{2}}));
    FAIL() << "bf16 should be refused";
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("convert it to f32"), std::string::npos) << e.what();
  }
}

TEST(Npy, AcceptsVersions2And3AndByteOrderSpellings) {
  std::vector<uint8_t> data(12);
  float v[3] = {1.5f, -2.f, 3.25f};
  std::memcpy(data.data(), v, 12);
  for (int major : {1, 2, 3})
    for (std::string d : {"<f4", "=f4", "|f4", "f4"}) {
      Literal l = parse_npy(make_npy(dict(d, "(3,)"), data, major), "ok.npy");
      EXPECT_EQ(l.type.str(), "f32[3]");
      EXPECT_EQ(l.to_vector<float>(), (std::vector<float>{1.5f, -2.f, 3.25f}));
    }
  // One-byte types: every byte-order character is fine.
  for (std::string d : {"|u1", "<u1", ">u1", "=u1", "|b1", ">b1", "|i1", ">i1"})
    EXPECT_EQ(parse_npy(make_npy(dict(d, "(2, 1)"), {1, 0}), "ok.npy").numel(), 2) << d;
  // Python 2 longs, double quotes, key order, no trailing comma, Fortran order at rank <= 1.
  Literal l = parse_npy(
      make_npy("{\"shape\": (3L,), \"fortran_order\": True, \"descr\": \"<f4\"}", data), "ok.npy");
  EXPECT_EQ(l.type.str(), "f32[3]");
  // Nonzero bytes of a bool file read as true.
  Literal b = parse_npy(make_npy(dict("|b1", "(3,)"), {0, 1, 7}), "ok.npy");
  EXPECT_EQ(b.to_vector<int>(), (std::vector<int>{0, 1, 1}));
}

TEST(Npy, BrokenFileCorpus) {
  const std::vector<uint8_t> f4x3(12, 0);
  expect_io_error({}, "not a .npy file");
  expect_io_error(bytes_of("\x93NUM"), "not a .npy file");
  expect_io_error(bytes_of("PK\x03\x04 this is a zip, not an npy file"), "not a .npy file");
  expect_io_error(bytes_of("\x93NUMPY"), "truncated");
  expect_io_error(bytes_of("\x93NUMPY\x01"), "truncated");
  expect_io_error(bytes_of(std::string("\x93NUMPY\x01\x00\x10", 9)), "truncated");
  expect_io_error(bytes_of(std::string("\x93NUMPY\x02\x00\x10\x00", 10)), "truncated");
  expect_io_error(bytes_of(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12)),
                  "header length says 255");
  {
    auto v4 = make_npy(dict("<f4", "(3,)"), f4x3);
    v4[6] = 4;
    expect_io_error(v4, "unsupported .npy format version 4.0");
    v4[6] = 1;
    v4[7] = 1;
    expect_io_error(v4, "version 1.1");
  }
  expect_io_error(make_npy("[1, 2, 3]", f4x3), "should start with '{'");
  expect_io_error(make_npy("", f4x3), "should start with '{'");
  expect_io_error(make_npy("{'descr': '<f4', 'fortran_order': False}", f4x3),
                  "missing key 'shape'");
  expect_io_error(make_npy("{'shape': (3,), 'fortran_order': False}", f4x3), "missing key 'descr'");
  expect_io_error(make_npy("{'descr': '<f4', 'shape': (3,)}", f4x3), "missing key 'fortran_order'");
  expect_io_error(make_npy(dict("<f4", "(3,)") + "{", f4x3), "unexpected text after");
  expect_io_error(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}", f4x3),
                  "unexpected key 'x'");
  expect_io_error(
      make_npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", f4x3),
      "duplicate key 'descr'");
  expect_io_error(make_npy("{'descr': '<f4, 'fortran_order': False, 'shape': (3,)}", f4x3),
                  "expected ',' or '}' after the value of 'descr'");
  expect_io_error(make_npy("{'descr: '<f4'", f4x3), "expected ':'");
  expect_io_error(make_npy("{'descr", f4x3), "newline inside a string");
  expect_io_error(bytes_of(std::string("\x93NUMPY\x01\x00\x02\x00{'", 12)), "unterminated string");
  expect_io_error(make_npy("{descr: '<f4'}", f4x3), "expected a quoted key");
  expect_io_error(make_npy("{'descr' '<f4'}", f4x3), "expected ':'");
  expect_io_error(make_npy("{'descr': '<f4' 'fortran_order': False}", f4x3), "expected ',' or '}'");
  expect_io_error(
      make_npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}", f4x3),
      "structured dtypes");
  expect_io_error(make_npy(dict("<f4", "(3,)", "0"), f4x3), "expected True or False");
  expect_io_error(make_npy(dict("<f4", "(3,)", "'no'"), f4x3), "expected True or False");
  expect_io_error(make_npy(dict(">f4", "(3,)"), f4x3), "big-endian dtype '>f4'");
  expect_io_error(make_npy(dict(">i8", "()"), std::vector<uint8_t>(8)), "astype('<i8')");
  for (std::string d : {"<c8", "<i2", "|O", "<U3", "|V2", "<f16", "<u2", "<u8", "", "<", "f"})
    expect_io_error(make_npy(dict(d, "(3,)"), f4x3), "unsupported dtype '" + d + "'");
  expect_io_error(make_npy(dict("<f4", "(3, 1)", "True"), f4x3), "Fortran-order");
  expect_io_error(make_npy(dict("<f4", "3"), f4x3), "expected a tuple");
  expect_io_error(make_npy(dict("<f4", "[3]"), f4x3), "expected a tuple");
  expect_io_error(make_npy(dict("<f4", "(3, -1)"), f4x3), "negative dimension");
  expect_io_error(make_npy(dict("<f4", "(3.0,)"), f4x3), "expected ',' or ')'");
  expect_io_error(make_npy(dict("<f4", "(,)"), f4x3), "expected an integer");
  expect_io_error(make_npy(dict("<f4", "(3,"), f4x3), "expected an integer");
  expect_io_error(make_npy(dict("<f4", "(99999999999999999999,)"), f4x3), "dimension too large");
  expect_io_error(make_npy(dict("<f4", "(9223372036854775807, 2)"), f4x3), "too large");
  expect_io_error(make_npy(dict("<f8", "(4611686018427387904,)"), f4x3), "too large");
  expect_io_error(make_npy(dict("<f8", "(2305843009213693952,)"), f4x3), "too large");
  expect_io_error(make_npy(dict("<f4", "(4,)"), f4x3), "needs 16 bytes but the file has 12");
  expect_io_error(make_npy(dict("<f4", "(2,)"), f4x3), "needs 8 bytes but the file has 12");
  expect_io_error(make_npy(dict("<f4", "(3,)"), {}), "truncated?");
  std::string latin1 = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } \xe9";
  expect_io_error(make_npy(latin1, f4x3), "non-ASCII");
  EXPECT_NO_THROW(parse_npy(make_npy(latin1.substr(0, latin1.size() - 1), f4x3), "ok.npy"));
}

TEST(Npy, EveryTruncationAndRandomCorruptionIsAnIOError) {
  const std::vector<uint8_t> good = encode_npy(sample(DType::f64, Shape{3, 5}));
  for (size_t k = 0; k < good.size(); ++k) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(k));
    EXPECT_THROW(parse_npy(cut, "cut.npy"), IOError) << "prefix of " << k << " bytes";
  }
  std::mt19937 rng(1234);
  int parsed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bad = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t at = rng() % 130;  // mostly the header, where the parsing is
      bad[at] = static_cast<uint8_t>(rng());
    }
    try {
      parse_npy(bad, "fuzz.npy");
      ++parsed;
    } catch (const IOError&) {
    }
  }
  EXPECT_LT(parsed, 3000);
}

class NpyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lazax_npy_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(NpyFiles, WriteReadOverwriteLeavesNoTemporaries) {
  for (DType t : kNpyTypes) {
    Literal a = sample(t, Shape{4, 2});
    write_npy(path("a.npy"), a);  // the second dtype onwards overwrites
    EXPECT_TRUE(read_npy(path("a.npy")).bit_equal(a)) << a.type.str();
  }
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "a.npy");
  }
  EXPECT_EQ(entries, 1);
}

TEST_F(NpyFiles, FileErrorsNameTheFile) {
  auto expect_error = [](auto&& fn, const std::string& fragment) {
    try {
      fn();
      ADD_FAILURE() << "no error; expected: " << fragment;
    } catch (const IOError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error([&] { read_npy(path("missing.npy")); }, "missing.npy: cannot open");
  expect_error([&] { read_npy(dir_.string()); }, "is a directory");
  expect_error([&] { write_npy(path("no/such/dir/x.npy"), Literal::scalar(1.0f)); },
               "x.npy: cannot create a temporary file");
  expect_error([&] { write_npy(path("b.npy"), Literal::zeros({DType::bf16, Shape{}})); }, "bf16");
  EXPECT_FALSE(fs::exists(path("b.npy")));
  { std::ofstream(path("short.npy"), std::ios::binary) << "\x93NUMPY\x01"; }
  expect_error([&] { read_npy(path("short.npy")); }, "short.npy: truncated");
}

}  // namespace
}  // namespace lazax
