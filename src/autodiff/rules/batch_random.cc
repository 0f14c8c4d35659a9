// The batching rule of random_bits with a batched key: Philox4x32-10 written with i64
// elementwise ops on [batch, blocks], one independent stream per example's key, bit for bit the
// stream the kernel draws for that key (src/interp/random.cc states the contract). Every value
// stays in [0, 2^49): 32x32-bit products are taken in 16-bit halves.
#include "lazax/autodiff/batching.h"

namespace lazax::autodiff {

namespace {

Tensor k64(double v) { return host_scalar(v, DType::i64); }
constexpr double kLow32 = 4294967295.0, kLow16 = 65535.0;

Tensor shift(OpCode op, const Tensor& a, int64_t s) {
  Tensor k = broadcast_to(k64(static_cast<double>(s)), a.sizes());
  return record_op(op, {&a, &k}, NoAttrs{});
}
Tensor shr(const Tensor& a, int64_t s) { return shift(OpCode::shift_right_logical, a, s); }
Tensor shl(const Tensor& a, int64_t s) { return shift(OpCode::shift_left, a, s); }
Tensor low32(const Tensor& a) { return bitwise_and(a, k64(kLow32)); }

// The high and low 32 bits of a * m (a in [0, 2^32), m a 32-bit constant): a's halves times m.
std::pair<Tensor, Tensor> mul_hi_lo(const Tensor& a, double m) {
  Tensor t1 = bitwise_and(a, k64(kLow16)) * k64(m);
  Tensor t2 = shr(a, 16) * k64(m);
  Tensor s = shr(t1, 16) + t2;  // a * m == s * 2^16 + (t1 & 0xffff)
  return {shr(s, 16),
          bitwise_or(shl(bitwise_and(s, k64(kLow16)), 16), bitwise_and(t1, k64(kLow16)))};
}

// The stream's words [size, 4 * blocks] for keys (seed, counter), each [size].
Tensor philox_words(const Tensor& seed, const Tensor& counter, int64_t size, int64_t blocks) {
  const std::vector<int64_t> shape{size, blocks};
  auto wide = [&](const Tensor& v) { return broadcast_to(v.reshape({size, 1}), shape); };
  Tensor k0 = wide(low32(seed)), k1 = wide(low32(shr(seed, 32)));
  Tensor b = record_op(OpCode::iota, {}, IotaAttrs{DType::i64, Shape{size, blocks}, 1});
  Tensor lo = wide(low32(counter)) + b;  // counter + b, with its carry into the high word
  Tensor c0 = low32(lo), c1 = low32(wide(low32(shr(counter, 32))) + shr(lo, 32));
  Tensor c2 = zeros(shape, DType::i64), c3 = zeros(shape, DType::i64);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 = low32(k0 + k64(0x9E3779B9u));
      k1 = low32(k1 + k64(0xBB67AE85u));
    }
    auto [h0, l0] = mul_hi_lo(c0, 0xD2511F53u);
    auto [h1, l1] = mul_hi_lo(c2, 0xCD9E8D57u);
    Tensor n0 = bitwise_xor(bitwise_xor(h1, c1), k0);
    Tensor n2 = bitwise_xor(bitwise_xor(h0, c3), k1);
    c0 = n0;
    c1 = l1;
    c2 = n2;
    c3 = l0;
  }
  return stack({c0, c1, c2, c3}, 2).reshape({size, 4 * blocks});
}

Tensor first_columns(const Tensor& t, int64_t n) {
  return record_op(OpCode::slice, {&t}, SliceAttrs{{0, 0}, {t.size(0), n}, {}});
}

}  // namespace

std::vector<Batched> batch_random_bits(const BatchContext& c) {
  const auto& a = c.attr<RandomBitsAttrs>();
  const Tensor& key = c.inputs[0].t;  // [size, 2]
  Tensor seed = key.select(1, 0), counter = key.select(1, 1);
  int64_t n = 1;
  for (int64_t d : a.shape) n *= d;
  const int64_t per = a.dtype == DType::i64 ? 2 : 1;
  const int64_t blocks = (n * per + 3) / 4;
  std::vector<int64_t> out_shape{c.size};
  for (int64_t d : a.shape) out_shape.push_back(d);
  Tensor bits;
  if (n == 0) {
    bits = zeros(out_shape, a.dtype);
  } else {
    Tensor w = first_columns(philox_words(seed, counter, c.size, blocks), n * per);
    switch (a.dtype) {
      case DType::u32:
        bits = w.to(DType::u32);
        break;
      case DType::i32:
        bits = (w - shl(shr(w, 31), 32)).to(DType::i32);
        break;
      case DType::u8:
        bits = bitwise_and(w, k64(255)).to(DType::u8);
        break;
      case DType::i8: {
        Tensor byte = bitwise_and(w, k64(255));
        bits = (byte - shl(shr(byte, 7), 8)).to(DType::i8);
        break;
      }
      default: {
        Tensor pairs = w.reshape({c.size, n, 2});
        Tensor lo = pairs.select(2, 0), hi = pairs.select(2, 1);
        bits = bitwise_or(lo, shl(hi, 32));
      }
    }
    bits = bits.reshape(out_shape);
  }
  Tensor next = stack({seed, counter + k64(static_cast<double>(blocks))}, 1);
  return {{bits, true}, {next, true}};
}

}  // namespace lazax::autodiff
