// NumPy .npy files: reading (format versions 1.0, 2.0 and 3.0) and writing (1.0, or 2.0 when the
// header is too long for 1.0). Little-endian, C-order arrays of
// f16/f32/f64/i8/i32/i64/u8/u32/bool.
// NumPy has no bfloat16, so bf16 literals are refused (convert them to f32 first).
// Every malformed file raises lazax::IOError naming the file and what is wrong.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lazax/ir/literal.h"

namespace lazax {

// Reads the .npy file at `path`.
Literal read_npy(const std::string& path);
// Parses the bytes of a .npy file; `name_for_errors` is the file name used in error messages.
Literal parse_npy(std::span<const uint8_t> bytes, const std::string& name_for_errors);

// Whether NumPy has the dtype, so that a .npy file can hold it (all but bf16).
bool npy_supports(DType dtype);

// Writes `value` to `path` atomically: a temporary file in the same directory is written, synced
// and renamed over `path`, so readers see the old file or the new one, never half of one.
void write_npy(const std::string& path, const Literal& value);
// The bytes of a .npy file holding `value` (identical to what numpy.save writes).
std::vector<uint8_t> encode_npy(const Literal& value);

}  // namespace lazax
