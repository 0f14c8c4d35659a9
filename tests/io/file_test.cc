// write_file_atomically and read_regular_file: a write that fails half-way (the file-size limit
// RLIMIT_FSIZE makes write() fail with EFBIG) leaves the old file intact and no temporary file;
// non-regular files are refused.
#include "lazax/io/file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "lazax/core/error.h"
#include "lazax/io/npy.h"
#include "lazax/io/safetensors.h"

namespace lazax {
namespace {

namespace fs = std::filesystem;

// Lowers the soft file-size limit (and ignores SIGXFSZ, so that write() fails with EFBIG rather
// than killing the process) for its lifetime.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim = old_;
    lim.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lazax_file_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    return out;
  }
  fs::path dir_;
};

TEST_F(AtomicWrite, WritesReplacesAndReadsBack) {
  const std::vector<uint8_t> a = {1, 2, 3}, b(100000, 7);
  write_file_atomically(path("f"), a);
  EXPECT_EQ(read_regular_file(path("f"), "test"), a);
  write_file_atomically(path("f"), b);
  EXPECT_EQ(read_regular_file(path("f"), "test"), b);
  write_file_atomically(path("f"), {});
  EXPECT_TRUE(read_regular_file(path("f"), "test").empty());
  EXPECT_EQ(entries(), std::vector<std::string>{"f"});
  EXPECT_EQ(fs::status(path("f")).permissions() & fs::perms::others_read, fs::perms::others_read);
}

TEST_F(AtomicWrite, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const std::vector<uint8_t> old_bytes(1000, 42), new_bytes(200000, 9);
  write_file_atomically(path("f"), old_bytes);
  try {
    FileSizeLimit limit(4096);
    write_file_atomically(path("f"), new_bytes, "test");
    ADD_FAILURE() << "the write should fail under a 4096-byte file-size limit";
  } catch (const IOError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("[test] " + path("f") + ": write failed after 4096 of 200000 bytes"),
              std::string::npos)
        << msg;
  }
  EXPECT_EQ(read_regular_file(path("f"), "test"), old_bytes);
  EXPECT_EQ(entries(), std::vector<std::string>{"f"});
}

TEST_F(AtomicWrite, NpyAndSafetensorsWritesAreAtomic) {
  const Literal small = Literal::from_vector<float>({1, 2, 3}, Shape{3});
  const Literal big = Literal::zeros({DType::f32, Shape{100000}});
  write_npy(path("a.npy"), small);
  SafetensorsFile st;
  st.tensors.emplace_back("w", small);
  write_safetensors(path("a.safetensors"), st);
  st.tensors[0].second = big;
  {
    FileSizeLimit limit(8192);
    EXPECT_THROW(write_npy(path("a.npy"), big), IOError);
    EXPECT_THROW(write_safetensors(path("a.safetensors"), st), IOError);
  }
  EXPECT_TRUE(read_npy(path("a.npy")).bit_equal(small));
  EXPECT_TRUE(read_safetensors(path("a.safetensors")).tensors[0].second.bit_equal(small));
  EXPECT_EQ(entries().size(), 2u);
}

TEST_F(AtomicWrite, ErrorsNameThePath) {
  try {
    write_file_atomically(path("no/dir/f"), std::vector<uint8_t>{1}, "ckpt");
    ADD_FAILURE();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("[ckpt] " + path("no/dir/f") +
                                         ": cannot create a temporary file"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_regular_file("/dev/zero", "x"), IOError);
  EXPECT_THROW(read_regular_file(dir_.string(), "x"), IOError);
  write_file_atomically(path("big"), std::vector<uint8_t>(100, 1));
  EXPECT_THROW(read_regular_file(path("big"), "x", 99), IOError);
  EXPECT_EQ(read_regular_file(path("big"), "x", 100).size(), 100u);
}

TEST(EscapeForMessage, KeepsPrintableTextAndEscapesTheRest) {
  EXPECT_EQ(escape_for_message("plain text"), "plain text");
  EXPECT_EQ(escape_for_message("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");  // é €
  EXPECT_EQ(escape_for_message("a\xff"), "a\\xff");
  EXPECT_EQ(escape_for_message("\x1b[31m\n"), "\\x1b[31m\\x0a");
  EXPECT_EQ(escape_for_message("back\\slash"), "back\\\\slash");
  EXPECT_EQ(escape_for_message("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(escape_for_message("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_for_message("\xc2\x85"), "\\xc2\\x85");           // C1 control NEL
  EXPECT_EQ(escape_for_message("\xe2\x82"), "\\xe2\\x82");           // cut short
  EXPECT_EQ(escape_for_message(std::string_view("\0", 1)), "\\x00");
}

TEST(EscapeForMessage, SafetensorsErrorsNeverEchoRawBytes) {
  const std::string header = "{\"a\xff\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
  std::vector<uint8_t> bytes(8);
  bytes[0] = static_cast<uint8_t>(header.size());
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.resize(bytes.size() + 4);
  try {
    parse_safetensors(bytes, "hostile.safetensors");
    FAIL() << "accepted";
  } catch (const IOError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\xff'), std::string::npos) << msg;
    EXPECT_NE(msg.find("\\xff"), std::string::npos) << msg;
  }
  // A name with a terminal escape (valid JSON, \u001b) is printed escaped.
  const std::string h2 = "{\"\\u001b[2J\":{\"dtype\":\"X9\",\"shape\":[1],\"data_offsets\":[0,4]}}";
  std::vector<uint8_t> b2(8);
  b2[0] = static_cast<uint8_t>(h2.size());
  b2.insert(b2.end(), h2.begin(), h2.end());
  b2.resize(b2.size() + 4);
  try {
    parse_safetensors(b2, "hostile.safetensors");
    FAIL() << "accepted";
  } catch (const IOError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
    EXPECT_NE(msg.find("'\\x1b[2J'"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace lazax
