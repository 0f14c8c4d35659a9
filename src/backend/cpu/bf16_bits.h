// bf16's rounding as bit operations, for the kernels that read and write bf16 (convert.cc,
// fused_tile.cc): bf16's constructor's (core/dtype.cc) inlined: round to nearest even, a NaN
// stays a quiet NaN of the same sign, so the results are the reference's bit for bit.
#pragma once
#include <cstdint>
#include <cstring>

namespace lazax::cpu {

inline uint16_t round_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

inline float widen_bf16(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace lazax::cpu
