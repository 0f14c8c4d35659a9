// safetensors files (https://github.com/huggingface/safetensors), the ecosystem's format for named
// tensors: an 8-byte little-endian header length N, N bytes of JSON
// {"__metadata__": {"key": "value", ...}, "name": {"dtype": "F32", "shape": [2, 3],
// "data_offsets": [begin, end]}, ...}, then the data: each tensor's bytes, row-major,
// little-endian, at [begin, end) of the bytes after the header, which the tensors cover exactly.
// Reads and writes the dtypes F32, F64, F16, BF16, I32, I64, U8 and BOOL. Tensors and metadata
// keep the order in which the header lists them. Every malformed or hostile file (truncated, a
// huge header length, bad JSON, an unknown dtype, overlapping, out-of-range or non-covering
// offsets, a shape that disagrees with its byte count) raises lazax::IOError naming the file and
// what is wrong; the reader never reads outside the file's bytes.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lazax/ir/literal.h"

namespace lazax {

struct SafetensorsFile {
  // Named tensors, in the header's order (the order written).
  std::vector<std::pair<std::string, Literal>> tensors;
  // The "__metadata__" string map, in the header's order.
  std::vector<std::pair<std::string, std::string>> metadata;

  // The tensor or metadata value of that name, or null / nullopt.
  const Literal* find(std::string_view name) const;
  std::optional<std::string> meta(std::string_view key) const;
};

// The largest header read (as the safetensors library): a longer one is refused unread.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// Reads the safetensors file at `path` (a regular file).
SafetensorsFile read_safetensors(const std::string& path);
// Parses the bytes of a safetensors file; `name_for_errors` names it in messages.
SafetensorsFile parse_safetensors(std::span<const uint8_t> bytes,
                                  const std::string& name_for_errors);

// Writes `file` to `path` atomically (write_file_atomically in lazax/io/file.h). The header
// lists "__metadata__" first (when there is any), then the tensors in order, their data laid
// out in the same order; it is padded with spaces so that the data starts 8-byte aligned.
// Duplicate or empty names, or a tensor named "__metadata__", are a ValueError.
void write_safetensors(const std::string& path, const SafetensorsFile& file);
// The bytes write_safetensors writes.
std::vector<uint8_t> encode_safetensors(const SafetensorsFile& file);

}  // namespace lazax
