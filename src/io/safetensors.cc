// safetensors reading and writing (lazax/io/safetensors.h). The reader checks the header length
// against the file, the JSON's nesting before parsing it, every entry's fields, and that the
// tensors' byte ranges tile the data exactly, before it copies any data.
#include "lazax/io/safetensors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "lazax/io/file.h"

namespace lazax {
namespace {

static_assert(std::endian::native == std::endian::little,
              "lazax's safetensors code assumes a little-endian host");

using Json = nlohmann::ordered_json;

constexpr char kMetadataKey[] = "__metadata__";
// A valid header nests three deep ({"name": {"shape": [...]}}); anything deeper is refused before
// parsing, so that no input can drive the JSON parser or destructor into deep recursion.
constexpr int kMaxNesting = 8;

struct DTypeRow {
  std::string_view name;
  DType dtype;
};
constexpr std::array<DTypeRow, 10> kDTypes = {{
    {"F32", DType::f32},
    {"F64", DType::f64},
    {"F16", DType::f16},
    {"BF16", DType::bf16},
    {"I32", DType::i32},
    {"I64", DType::i64},
    {"U8", DType::u8},
    {"I8", DType::i8},
    {"U32", DType::u32},
    {"BOOL", DType::boolean},
}};
// The other dtypes of the format, refused with a hint rather than called unknown.
constexpr std::array<std::string_view, 6> kOtherFormatDTypes = {"I16",     "U16",     "U64",
                                                                "F8_E4M3", "F8_E5M2", "C64"};

// `what` may quote the file's bytes (names, the JSON parser's "last read: ..."): escaped.
[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw IOError("[safetensors] " + escape_for_message(file) + ": " + escape_for_message(what));
}

std::string_view format_name(DType t) {
  for (const DTypeRow& row : kDTypes)
    if (row.dtype == t) return row.name;
  return {};
}

DType dtype_of(const std::string& name, const std::string& tensor, const std::string& file) {
  for (const DTypeRow& row : kDTypes)
    if (row.name == name) return row.dtype;
  const bool known = std::find(kOtherFormatDTypes.begin(), kOtherFormatDTypes.end(), name) !=
                     kOtherFormatDTypes.end();
  fail(file,
       std::string(known ? "unsupported" : "unknown") + " dtype '" + name + "' of tensor '" +
           tensor +
           "'; lazax reads F32 F64 F16 BF16 I8 I32 I64 U8 U32 BOOL (convert the tensor to one "
           "of them before saving)");
}

// Refuses JSON nested deeper than kMaxNesting (brackets outside strings).
void check_nesting(std::string_view text, const std::string& file) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxNesting)
        fail(file, "bad header: JSON nested more than " + std::to_string(kMaxNesting) + " deep");
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

// Parses the header, refusing duplicate keys in any object (JSON parsers disagree on which wins).
Json parse_header_json(std::string_view text, const std::string& file) {
  if (text.empty() || text.front() != '{')
    fail(file, "bad header: it must be a JSON object starting with '{'");
  check_nesting(text, file);
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == Json::parse_event_t::key && !open_objects.empty()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second && duplicate.empty()) duplicate = key;
    }
    return true;
  };
  Json header;
  try {
    header = Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::exception& e) {
    fail(file, std::string("bad header JSON: ") + e.what());
  }
  if (!duplicate.empty()) fail(file, "bad header: the key '" + duplicate + "' appears twice");
  if (!header.is_object()) fail(file, "bad header: it must be a JSON object");
  return header;
}

uint64_t unsigned_field(const Json& v, const std::string& what, const std::string& file) {
  if (!v.is_number_unsigned()) {
    if (v.is_number_integer())
      fail(file, what + " is negative (" + v.dump() + "); it must be a non-negative integer");
    fail(file, what + " must be a non-negative integer, got " + v.dump());
  }
  return v.get<uint64_t>();
}

struct Entry {
  std::string name;
  TensorType type;
  uint64_t begin = 0, end = 0;
};

Entry parse_entry(const std::string& name, const Json& info, const std::string& file) {
  const std::string where = "tensor '" + name + "'";
  if (!info.is_object())
    fail(file, where + " must be an object {dtype, shape, data_offsets}, got " + info.dump());
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!info.contains(key)) fail(file, where + " has no '" + key + "'");
  const Json& dt = info.at("dtype");
  if (!dt.is_string()) fail(file, where + ": dtype must be a string, got " + dt.dump());
  Entry e;
  e.name = name;
  e.type.dtype = dtype_of(dt.get<std::string>(), name, file);
  const Json& shape = info.at("shape");
  if (!shape.is_array()) fail(file, where + ": shape must be an array, got " + shape.dump());
  Dims dims;
  uint64_t numel = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const uint64_t d = unsigned_field(shape[i], where + " shape[" + std::to_string(i) + "]", file);
    if (d > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(numel, d, &numel) ||
        numel > static_cast<uint64_t>(INT64_MAX))
      fail(file, where + ": shape " + shape.dump() + " is too large (its size overflows)");
    dims.push_back(static_cast<int64_t>(d));
  }
  e.type.shape = Shape(std::move(dims));
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(numel, dtype_size(e.type.dtype), &nbytes))
    fail(file, where + ": shape " + shape.dump() + " is too large (its byte count overflows)");
  const Json& offsets = info.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2)
    fail(file, where + ": data_offsets must be [begin, end], got " + offsets.dump());
  e.begin = unsigned_field(offsets[0], where + " data_offsets[0]", file);
  e.end = unsigned_field(offsets[1], where + " data_offsets[1]", file);
  if (e.end < e.begin)
    fail(file, where + ": data_offsets " + offsets.dump() + " end before they begin");
  if (e.end - e.begin != nbytes) {
    fail(file, where + ": shape " + shape.dump() + " of " + dt.get<std::string>() + " needs " +
                   std::to_string(nbytes) + " bytes but data_offsets " + offsets.dump() + " hold " +
                   std::to_string(e.end - e.begin));
  }
  return e;
}

std::string range_text(const Entry& e) {
  return "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + ")";
}

// The entries' byte ranges must tile [0, data_size): no overlap, no gap, nothing outside.
void check_coverage(std::vector<const Entry*> entries, uint64_t data_size,
                    const std::string& file) {
  for (const Entry* e : entries) {
    if (e->end > data_size) {
      fail(file, "tensor '" + e->name + "': data_offsets " + range_text(*e) +
                     " go past the end of the data (" + std::to_string(data_size) +
                     " bytes after the header; truncated?)");
    }
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry* e : entries) {
    if (e->begin < covered) {
      fail(file, "tensor '" + e->name + "': data_offsets " + range_text(*e) +
                     " overlap those of tensor '" + previous->name + "' " + range_text(*previous));
    }
    if (e->begin > covered) {
      fail(file, "bytes [" + std::to_string(covered) + ", " + std::to_string(e->begin) +
                     ") of the data belong to no tensor (the offsets must cover the data "
                     "exactly)");
    }
    covered = e->end;
    previous = e;
  }
  if (covered != data_size) {
    fail(file, "the tensors cover " + std::to_string(covered) + " bytes of data but " +
                   std::to_string(data_size) +
                   " follow the header (trailing bytes belong to no tensor)");
  }
}

std::vector<std::pair<std::string, std::string>> parse_metadata(const Json& m,
                                                                const std::string& file) {
  if (!m.is_object()) fail(file, "__metadata__ must be an object of strings, got " + m.dump());
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : m.items()) {
    if (!value.is_string()) {
      fail(file, "__metadata__ value of '" + key + "' must be a string, got " + value.dump() +
                     " (the format allows strings only)");
    }
    out.emplace_back(key, value.get<std::string>());
  }
  return out;
}

uint64_t read_u64_le(std::span<const uint8_t> b) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= static_cast<uint64_t>(b[i]) << (8 * i);
  return v;
}

}  // namespace

const Literal* SafetensorsFile::find(std::string_view name) const {
  for (const auto& [n, lit] : tensors)
    if (n == name) return &lit;
  return nullptr;
}

std::optional<std::string> SafetensorsFile::meta(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return v;
  return std::nullopt;
}

SafetensorsFile parse_safetensors(std::span<const uint8_t> bytes, const std::string& file) {
  const uint64_t n = bytes.size();
  if (n < 8) {
    fail(file, "truncated: " + std::to_string(n) +
                   " bytes, but a safetensors file starts with an 8-byte header length");
  }
  const uint64_t header_len = read_u64_le(bytes.first(8));
  if (header_len > kSafetensorsMaxHeaderBytes) {
    fail(file, "the header length " + std::to_string(header_len) + " is over the " +
                   std::to_string(kSafetensorsMaxHeaderBytes) +
                   "-byte limit (not a safetensors file, or a corrupted one)");
  }
  if (header_len > n - 8) {
    fail(file, "truncated: the header length says " + std::to_string(header_len) +
                   " bytes but only " + std::to_string(n - 8) + " follow");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), header_len);
  const Json header = parse_header_json(text, file);

  SafetensorsFile out;
  std::vector<Entry> entries;
  entries.reserve(header.size());
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      out.metadata = parse_metadata(value, file);
    } else {
      entries.push_back(parse_entry(key, value, file));
    }
  }
  const uint64_t data_size = n - 8 - header_len;
  std::vector<const Entry*> order;
  order.reserve(entries.size());
  for (const Entry& e : entries) order.push_back(&e);
  check_coverage(std::move(order), data_size, file);

  const uint8_t* data = bytes.data() + 8 + header_len;
  out.tensors.reserve(entries.size());
  for (const Entry& e : entries) {
    Literal lit = Literal::zeros(e.type);
    const size_t nbytes = e.end - e.begin;
    if (e.type.dtype == DType::boolean) {
      // Any nonzero byte is true; a C++ bool must hold exactly 0 or 1.
      bool* dst = lit.data<bool>();
      for (size_t i = 0; i < nbytes; ++i) dst[i] = data[e.begin + i] != 0;
    } else if (nbytes) {
      std::memcpy(lit.buffer.data(), data + e.begin, nbytes);
    }
    out.tensors.emplace_back(e.name, std::move(lit));
  }
  return out;
}

SafetensorsFile read_safetensors(const std::string& path) {
  return parse_safetensors(read_regular_file(path, "safetensors"), path);
}

std::vector<uint8_t> encode_safetensors(const SafetensorsFile& file) {
  Json header = Json::object();
  if (!file.metadata.empty()) {
    Json meta = Json::object();
    for (const auto& [key, value] : file.metadata) {
      if (meta.contains(key))
        throw ValueError("[safetensors] the metadata key '" + key + "' appears twice");
      meta[key] = value;
    }
    header[kMetadataKey] = std::move(meta);
  }
  uint64_t offset = 0;
  for (const auto& [name, lit] : file.tensors) {
    if (name.empty() || name == kMetadataKey) {
      throw ValueError("[safetensors] cannot write a tensor named '" + name +
                       "' (empty, or the metadata key); rename it");
    }
    if (header.contains(name))
      throw ValueError("[safetensors] the tensor name '" + name + "' appears twice");
    const std::string_view dt = format_name(lit.dtype());
    if (dt.empty()) {
      throw ValueError("[safetensors] cannot write tensor '" + name + "' of type " +
                       lit.type.str() + ": convert it to a dtype the format has");
    }
    const uint64_t nbytes = lit.type.bytes();
    header[name] = {
        {"dtype", dt}, {"shape", lit.shape().vec()}, {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  std::string text = header.dump();
  // Pad with spaces so that the data starts at a multiple of 8 (as the safetensors library).
  text.append((8 - (8 + text.size()) % 8) % 8, ' ');
  std::vector<uint8_t> out;
  out.reserve(8 + text.size() + offset);
  const uint64_t len = text.size();
  for (size_t i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  for (const auto& [name, lit] : file.tensors) {
    const auto* data = static_cast<const uint8_t*>(lit.buffer.data());
    if (lit.dtype() == DType::boolean) {
      for (int64_t i = 0; i < lit.numel(); ++i) out.push_back(lit.data<bool>()[i] ? 1 : 0);
    } else if (const size_t nbytes = lit.type.bytes()) {
      out.insert(out.end(), data, data + nbytes);
    }
  }
  return out;
}

void write_safetensors(const std::string& path, const SafetensorsFile& file) {
  const std::vector<uint8_t> bytes = encode_safetensors(file);  // refuses bad input before I/O
  write_file_atomically(path, bytes, "safetensors");
}

}  // namespace lazax
