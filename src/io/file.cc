// Whole-file reading and atomic writing (lazax/io/file.h).
#include "lazax/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "lazax/core/error.h"

namespace lazax {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

[[noreturn]] void fail(const char* component, const std::string& path, const std::string& what) {
  throw IOError(std::string("[") + component + "] " + path + ": " + what);
}

// Closes a descriptor when it goes out of scope (unless released).
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::vector<uint8_t> read_regular_file(const std::string& path, const char* component,
                                       uint64_t max_bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) fail(component, path, "cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) fail(component, path, "cannot stat: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) fail(component, path, "is a directory, not a file");
  if (!S_ISREG(st.st_mode)) {
    fail(component, path,
         "is not a regular file (a device, pipe or socket); copy the data into a file first");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    fail(component, path,
         "is " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
             " this reader accepts");
  }
  std::vector<uint8_t> bytes(size);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(f.fd, bytes.data() + done, bytes.size() - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(component, path, "read failed: " + errno_text(errno));
    }
    if (got == 0) break;  // the file shrank while we read it
    done += static_cast<size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes,
                           const char* component) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string tmp = path + ".tmp-XXXXXX";
  Fd f{::mkstemp(tmp.data())};
  if (f.fd < 0) {
    fail(component, path,
         "cannot create a temporary file in " + dir.string() + ": " + errno_text(errno));
  }
  // From here on a failure removes the temporary file; the old file at `path` is untouched.
  auto abandon = [&](const std::string& what, int err) {
    ::close(f.fd);
    f.fd = -1;
    ::unlink(tmp.c_str());
    fail(component, path, what + ": " + errno_text(err));
  };
  // mkstemp makes the file 0600; give it the usual mode of a data file.
  if (::fchmod(f.fd, 0644) != 0) abandon("cannot set the mode of " + tmp, errno);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t put = ::write(f.fd, bytes.data() + done, bytes.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      abandon("write failed after " + std::to_string(done) + " of " + std::to_string(bytes.size()) +
                  " bytes",
              errno);
    }
    done += static_cast<size_t>(put);
  }
  if (::fsync(f.fd) != 0) abandon("fsync failed", errno);
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(component, path, "close failed: " + errno_text(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(component, path, "cannot rename the temporary file into place: " + errno_text(err));
  }
  // Make the rename durable too. The new file is in place by now, so a directory that cannot be
  // synced (some file systems refuse) is not worth an error.
  Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd >= 0) (void)::fsync(d.fd);
}

std::string escape_for_message(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size());
  auto escape = [&](unsigned char b) {
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 15];
  };
  auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  size_t i = 0;
  while (i < bytes.size()) {
    const unsigned char b = byte(i);
    if (b < 0x80) {
      if (b == '\\') {
        out += "\\\\";
      } else if (b < 0x20 || b == 0x7f) {
        escape(b);
      } else {
        out += static_cast<char>(b);
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length, the least code point of that length (no overlong forms),
    // then continuation bytes; no surrogates, nothing above U+10FFFF, no C1 controls.
    const size_t len = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    uint32_t cp = len == 4 ? b & 0x07u : len == 3 ? b & 0x0fu : b & 0x1fu;
    bool ok = len != 0 && i + len <= bytes.size();
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (byte(i + k) & 0xc0) == 0x80;
      cp = (cp << 6) | (byte(i + k) & 0x3fu);
    }
    constexpr uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kLeast[len] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) &&
         !(cp >= 0x80 && cp < 0xa0);
    if (!ok) {
      escape(b);
      ++i;
      continue;
    }
    out.append(bytes.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace lazax
