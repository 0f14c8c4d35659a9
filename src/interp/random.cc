// Interpreter kernel for random_bits: a counter-based generator (Philox4x32-10, Salmon et al.
// 2011), so that bits depend only on the key and every backend can reproduce them exactly.
//
// The contract (every backend must match it bit for bit):
//   key: i64[2]. key[0] is the seed: its low 32 bits are Philox key word 0, its high 32 bits
//   key word 1. key[1] is a 64-bit counter.
//   Block b (b = 0, 1, ...) runs Philox4x32-10 on the counter words
//     (low32(key[1] + b), high32(key[1] + b), 0, 0)      (the addition wraps modulo 2^64)
//   and yields 4 uint32 words; the words of blocks 0, 1, ... form one stream w[0], w[1], ...
//   Elements, in row-major order, take words from the stream:
//     i32: element j = w[j] reinterpreted as signed;  u32: element j = w[j];
//     u8:  element j = low byte of w[j];  i8: the same byte reinterpreted as signed;
//     i64: element j = w[2j] | (w[2j+1] << 32), reinterpreted as signed.
//   Blocks used = ceil(words needed / 4) (0 for an empty shape).
//   next_key = (key[0], key[1] + blocks used), so consecutive calls never reuse a counter.
#include <array>
#include <cstdint>
#include <string>

#include "kernels.h"
#include "lazax/core/error.h"

namespace lazax::interp {
namespace {

using Block = std::array<uint32_t, 4>;

Block philox4x32_10(Block ctr, uint32_t k0, uint32_t k1) {
  constexpr uint64_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kBump0 = 0x9E3779B9u, kBump1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kBump0;
      k1 += kBump1;
    }
    uint64_t p0 = kMul0 * ctr[0];
    uint64_t p1 = kMul1 * ctr[2];
    auto hi = [](uint64_t p) { return static_cast<uint32_t>(p >> 32); };
    auto lo = [](uint64_t p) { return static_cast<uint32_t>(p); };
    ctr = Block{hi(p1) ^ ctr[1] ^ k0, lo(p1), hi(p0) ^ ctr[3] ^ k1, lo(p0)};
  }
  return ctr;
}

}  // namespace

std::vector<Literal> kernel_random_bits(const Node& node, std::span<const Literal> in) {
  const auto* attrs = std::get_if<RandomBitsAttrs>(&node.attrs);
  if (!attrs) throw VerifyError("[random_bits] node carries the wrong attribute struct");
  if (in.size() != 1 || in[0].type != TensorType{DType::i64, Shape{2}}) {
    throw ShapeError("[random_bits] takes one key of type i64[2], got " +
                     (in.empty() ? std::string("nothing") : in[0].type.str()));
  }
  DType dt = attrs->dtype;
  if (!is_integer(dt)) {
    throw DTypeError("[random_bits] makes integer bits (i8, i32, i64, u8 or u32), not " +
                     std::string(dtype_name(dt)) + "; convert the bits afterwards");
  }
  for (int64_t d : attrs->shape) {
    if (d < 0) throw ShapeError("[random_bits] negative dimension in " + attrs->shape.str());
  }
  const uint64_t seed = static_cast<uint64_t>(in[0].data<int64_t>()[0]);
  const uint64_t counter = static_cast<uint64_t>(in[0].data<int64_t>()[1]);
  const uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);

  Literal bits = Literal::zeros(TensorType{dt, attrs->shape});
  const uint64_t n = static_cast<uint64_t>(bits.numel());
  const uint64_t words_per_elem = dt == DType::i64 ? 2 : 1;
  const uint64_t blocks = (n * words_per_elem + 3) / 4;

  Block block{};
  uint64_t cached = UINT64_MAX;  // index of the block in `block`
  auto word = [&](uint64_t w) -> uint32_t {
    uint64_t b = w / 4;
    if (b != cached) {
      uint64_t c = counter + b;  // wraps modulo 2^64
      block = philox4x32_10(Block{static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u},
                            k0, k1);
      cached = b;
    }
    return block[w % 4];
  };
  for (uint64_t j = 0; j < n; ++j) {
    switch (dt) {
      case DType::i32:
        bits.data<int32_t>()[j] = static_cast<int32_t>(word(j));
        break;
      case DType::u32:
        bits.data<uint32_t>()[j] = word(j);
        break;
      case DType::u8:
        bits.data<uint8_t>()[j] = static_cast<uint8_t>(word(j));
        break;
      case DType::i8:
        bits.data<int8_t>()[j] = static_cast<int8_t>(static_cast<uint8_t>(word(j)));
        break;
      default: {
        uint64_t lo = word(2 * j), hi = word(2 * j + 1);
        bits.data<int64_t>()[j] = static_cast<int64_t>(lo | (hi << 32));
      }
    }
  }
  Literal next = Literal::zeros(TensorType{DType::i64, Shape{2}});
  next.data<int64_t>()[0] = static_cast<int64_t>(seed);
  next.data<int64_t>()[1] = static_cast<int64_t>(counter + blocks);
  return {std::move(bits), std::move(next)};
}

}  // namespace lazax::interp
