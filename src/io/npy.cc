// .npy reading and writing. The format: the magic "\x93NUMPY", a major and a minor version byte,
// the header length (2 bytes in 1.0, 4 bytes in 2.0 and 3.0, little-endian), the header (a Python
// dict literal, latin-1 in 1.0/2.0 and UTF-8 in 3.0, padded with spaces and ended by '\n' so that
// the data starts at a multiple of 64 bytes), then the raw data.
#include "lazax/io/npy.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string_view>

#include "lazax/io/file.h"
#include "npy_header.h"

namespace lazax {
namespace {

static_assert(std::endian::native == std::endian::little,
              "lazax's .npy code assumes a little-endian host");

constexpr std::array<uint8_t, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kArrayAlign = 64;  // numpy.lib.format.ARRAY_ALIGN

struct DescrRow {
  std::string_view code;  // kind and item size, as after the byte-order character
  DType dtype;
  std::string_view canonical;  // what numpy.save writes
};
constexpr std::array<DescrRow, 9> kDescrs = {{
    {"f2", DType::f16, "<f2"},
    {"f4", DType::f32, "<f4"},
    {"f8", DType::f64, "<f8"},
    {"i4", DType::i32, "<i4"},
    {"i8", DType::i64, "<i8"},
    {"u1", DType::u8, "|u1"},
    {"i1", DType::i8, "|i1"},
    {"u4", DType::u32, "<u4"},
    {"b1", DType::boolean, "|b1"},
}};

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw IOError("[npy] " + escape_for_message(file) + ": " + what);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

DType dtype_from_descr(const std::string& descr, const std::string& file) {
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && std::string_view("<>=|").find(code[0]) != std::string_view::npos) {
    order = code[0];
    code.remove_prefix(1);
  }
  for (const DescrRow& row : kDescrs) {
    if (row.code != code) continue;
    // '=' and '|' mean native order, which is little-endian here; order is moot for one byte.
    if (order == '>' && dtype_size(row.dtype) > 1) {
      fail(file, "big-endian dtype '" + escape_for_message(descr) +
                     "' is not supported; convert it with "
                     "arr.astype('<" +
                     std::string(code) + "') before saving");
    }
    return row.dtype;
  }
  fail(file,
       "unsupported dtype '" + escape_for_message(descr) +
           "'; lazax reads <f2 <f4 <f8 |i1 <i4 <i8 |u1 <u4 |b1 (convert with arr.astype(...), "
           "e.g. arr.astype(np.float32), before saving)");
}

uint32_t read_le(std::span<const uint8_t> b, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(b[at + i]) << (8 * i);
  return v;
}

}  // namespace

Literal parse_npy(std::span<const uint8_t> bytes, const std::string& file) {
  const size_t n = bytes.size();
  if (n < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    fail(file, "not a .npy file (it does not start with the magic \"\\x93NUMPY\")");
  if (n < 8) fail(file, "truncated: the file ends inside the version bytes");
  const int major = bytes[6], minor = bytes[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(file, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (lazax reads 1.0, 2.0 and 3.0)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t header_start = 8 + len_bytes;
  if (n < header_start) fail(file, "truncated: the file ends inside the header length");
  const size_t header_len = read_le(bytes, 8, len_bytes);
  if (header_len > n - header_start)
    fail(file, "truncated: the header length says " + std::to_string(header_len) +
                   " bytes but only " + std::to_string(n - header_start) + " follow");
  std::string_view header(reinterpret_cast<const char*>(bytes.data() + header_start), header_len);
  if (major < 3) {  // latin-1: anything outside ASCII cannot be part of a valid header anyway
    for (char c : header) {
      if (static_cast<unsigned char>(c) >= 0x80)
        fail(file,
             "bad header: non-ASCII byte in a version " + std::to_string(major) + ".0 header");
    }
  }
  npy::Header h = npy::parse_header_dict(header, file);
  const DType dtype = dtype_from_descr(h.descr, file);
  if (h.fortran_order && h.shape.size() > 1) {
    fail(file,
         "Fortran-order (column-major) arrays are not supported; save "
         "np.ascontiguousarray(arr) instead");
  }

  // Sizes: refuse anything whose byte count does not fit rather than wrapping around.
  int64_t numel = 1;
  for (int64_t d : h.shape)
    if (__builtin_mul_overflow(numel, d, &numel))
      fail(file, "shape " + shape_text(h.shape) + " is too large (its size overflows)");
  size_t need = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(numel), dtype_size(dtype), &need))
    fail(file, "shape " + shape_text(h.shape) + " is too large (its byte count overflows)");
  const size_t data_start = header_start + header_len;
  const size_t have = n - data_start;
  if (have != need) {
    fail(file, "data size mismatch: shape " + shape_text(h.shape) + " of '" +
                   escape_for_message(h.descr) + "' needs " + std::to_string(need) +
                   " bytes but the file has " + std::to_string(have) + " after the header" +
                   (have < need ? " (truncated?)" : ""));
  }

  Literal lit = Literal::zeros(TensorType{dtype, Shape(h.shape)});
  if (need == 0) return lit;
  if (dtype == DType::boolean) {
    // Any nonzero byte is true; a C++ bool must hold exactly 0 or 1.
    bool* out = lit.data<bool>();
    for (size_t i = 0; i < need; ++i) out[i] = bytes[data_start + i] != 0;
  } else {
    std::memcpy(lit.buffer.data(), bytes.data() + data_start, need);
  }
  return lit;
}

bool npy_supports(DType dtype) {
  return std::any_of(kDescrs.begin(), kDescrs.end(),
                     [dtype](const DescrRow& row) { return row.dtype == dtype; });
}

std::vector<uint8_t> encode_npy(const Literal& value) {
  const DType dtype = value.dtype();
  std::string_view descr;
  for (const DescrRow& row : kDescrs)
    if (row.dtype == dtype) descr = row.canonical;
  if (descr.empty()) {
    throw IOError("[npy] cannot write a " + value.type.str() + " array: NumPy has no " +
                  std::string(dtype_name(dtype)) +
                  " dtype; convert it to f32 first (convert {dtype=f32})");
  }
  std::string dict = npy::format_header_dict(descr, value.shape().vec());

  // As numpy.lib.format._wrap_header: pad with spaces and a '\n' so the data is 64-aligned,
  // using version 1.0 unless the header length does not fit in its 2 bytes.
  int major = 1;
  size_t len_bytes = 2;
  size_t hlen = dict.size() + 1;
  size_t pad = kArrayAlign - (8 + len_bytes + hlen) % kArrayAlign;
  if (hlen + pad > 0xffff) {
    major = 2;
    len_bytes = 4;
    pad = kArrayAlign - (8 + len_bytes + hlen) % kArrayAlign;
    if (hlen + pad > 0xffffffffu)
      throw IOError("[npy] cannot write a " + value.type.str() + " array: header too long");
  }
  const size_t header_len = hlen + pad;
  const size_t data_bytes = value.type.bytes();
  std::vector<uint8_t> out;
  out.reserve(8 + len_bytes + header_len + data_bytes);
  out.insert(out.end(), kMagic.begin(), kMagic.end());
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  for (size_t i = 0; i < len_bytes; ++i) out.push_back(static_cast<uint8_t>(header_len >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), pad, ' ');
  out.push_back('\n');
  const auto* data = static_cast<const uint8_t*>(value.buffer.data());
  if (data_bytes) out.insert(out.end(), data, data + data_bytes);
  return out;
}

Literal read_npy(const std::string& path) {
  // A regular file only: /dev/zero or a pipe would be read forever.
  return parse_npy(read_regular_file(path, "npy"), path);
}

void write_npy(const std::string& path, const Literal& value) {
  const std::vector<uint8_t> bytes = encode_npy(value);  // refuses bad dtypes before any I/O
  write_file_atomically(path, bytes, "npy");
}

}  // namespace lazax
