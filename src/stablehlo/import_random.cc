// The importer's rows for random bits. lazax has no bitcast primitive and no u64, so:
// - bitcast_convert between integers of one width is a convert (which wraps), and (u)i32 -> f32
//   is rebuilt exactly from the sign, exponent and mantissa fields (what jax.random.uniform
//   needs); a tensor<Sxui64> is carried as its two ui32 words (parse_lex.cc), so ui64 <-> ui32
//   pairs is no op at all.
// - rng_bit_generator THREE_FRY is threefry2x32-20 written in add/xor/shift ops, with the key,
//   counter and state rules of XLA's expander (docs/STABLEHLO.md says which).
#include <bit>
#include <cmath>
#include <map>
#include <string>

#include "import_ops.h"

namespace lazax::stablehlo {
namespace {

using Values = std::vector<ValueRef>;

// Elementwise ops on values of one shape, with splat constants made once per value.
struct Ops {
  Builder& b;
  Shape shape;
  std::map<std::pair<DType, uint64_t>, ValueRef> consts;  // by the bits of v (NaN included)

  ValueRef k(DType dt, double v) {
    auto key = std::make_pair(dt, std::bit_cast<uint64_t>(v));
    auto it = consts.find(key);
    if (it != consts.end()) return it->second;
    ValueRef c = b.constant(Literal::scalar_of(dt, v));
    if (!shape.dims().empty())
      c = b.add(OpCode::broadcast_in_dim, {c}, BroadcastInDimAttrs{shape, {}});
    consts.emplace(key, c);
    return c;
  }
  ValueRef u(double v) { return k(DType::u32, v); }
  ValueRef f(double v) { return k(DType::f32, v); }
  ValueRef op(OpCode c, ValueRef x, ValueRef y) { return b.add(c, {x, y}); }
  ValueRef cmp(CompareDir d, ValueRef x, ValueRef y) {
    return b.add(OpCode::compare, {x, y}, CompareAttrs{d});
  }
  ValueRef select(ValueRef p, ValueRef x, ValueRef y) { return b.add(OpCode::select, {p, x, y}); }
  ValueRef convert(ValueRef x, DType dt) { return b.add(OpCode::convert, {x}, ConvertAttrs{dt}); }
  ValueRef bit(ValueRef x, uint32_t mask) {
    return cmp(CompareDir::ne, op(OpCode::and_, x, u(mask)), u(0));
  }
};

// 2^(k - 63) for k in [0, 127]: a product of exact powers of two chosen by k's bits.
ValueRef pow2(Ops& e, ValueRef k) {
  ValueRef p = e.f(0x1p-63);
  for (int j = 0; j < 7; ++j)
    p = e.op(OpCode::mul, p, e.select(e.bit(k, 1u << j), e.f(std::ldexp(1.0, 1 << j)), e.f(1)));
  return p;
}

// The f32 whose bits are x (u32): every step exact, so the value is bit-exact except that a NaN
// comes out as the quiet NaN of x's sign (its payload is lost).
ValueRef bits_to_f32(Ops& e, ValueRef x) {
  ValueRef exponent = e.op(OpCode::and_, e.op(OpCode::shift_right_logical, x, e.u(23)), e.u(255));
  ValueRef mantissa = e.op(OpCode::and_, x, e.u(0x7FFFFF));
  ValueRef m = e.convert(mantissa, DType::f32);  // < 2^23: exact
  // Normal: (1 + m 2^-23) 2^(exponent - 127), the power split in two that each fit in f32.
  ValueRef q = e.op(OpCode::sub, exponent, e.u(1));  // wraps for exponent 0: not selected then
  ValueRef qa = e.op(OpCode::shift_right_logical, q, e.u(1)), qb = e.op(OpCode::sub, q, qa);
  ValueRef frac = e.op(OpCode::add, e.f(1), e.op(OpCode::mul, m, e.f(0x1p-23)));
  ValueRef normal = e.op(OpCode::mul, e.op(OpCode::mul, frac, pow2(e, qa)), pow2(e, qb));
  // Subnormal: m 2^-149, in two steps so that the first stays normal.
  ValueRef sub = e.op(OpCode::mul, e.op(OpCode::mul, m, e.f(0x1p-75)), e.f(0x1p-74));
  ValueRef special = e.select(e.cmp(CompareDir::eq, mantissa, e.u(0)), e.f(INFINITY), e.f(NAN));
  ValueRef v = e.select(e.cmp(CompareDir::eq, exponent, e.u(0)), sub,
                        e.select(e.cmp(CompareDir::eq, exponent, e.u(255)), special, normal));
  return e.select(e.bit(x, 0x80000000u), e.b.add(OpCode::neg, {v}), v);
}

}  // namespace

Values bitcast_convert(Builder& b, const OpSyntax& o, Values& in) {
  if (in.size() != 1 || o.out_types.size() != 1)
    fail(o.pos, "bitcast_convert takes one operand and has one result type");
  const TensorType from = b.type(in[0]);
  const TensorType& to = o.out_types[0];
  if (from == to) return {in[0]};  // ui64 <-> its two ui32 words: the same lazax value
  bool same_shape = from.shape == to.shape;
  if (same_shape && is_integer(from.dtype) && is_integer(to.dtype) &&
      dtype_size(from.dtype) == dtype_size(to.dtype))
    return {b.add(OpCode::convert, {in[0]}, ConvertAttrs{to.dtype})};  // wraps: the same bits
  if (same_shape && to.dtype == DType::f32 &&
      (from.dtype == DType::u32 || from.dtype == DType::i32)) {
    Ops e{b, from.shape, {}};
    ValueRef x = from.dtype == DType::u32 ? in[0] : e.convert(in[0], DType::u32);
    return {bits_to_f32(e, x)};
  }
  fail(o.pos, "bitcast_convert from " + from.str() + " to " + to.str() +
                  " is not supported: lazax has no bitcast primitive; the importer rebuilds "
                  "integer <-> integer of one width, ui32/i32 -> f32 and ui64 <-> ui32 pairs");
}

namespace {

// threefry2x32 with 20 rounds (Salmon et al., SC 2011; Random123's threefry2x32_20): the key
// schedule, rotations and injections of the spec, on u32 values of one shape.
std::pair<ValueRef, ValueRef> threefry2x32(Ops& e, ValueRef k0, ValueRef k1, ValueRef x0,
                                           ValueRef x1) {
  static constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const ValueRef ks[3] = {k0, k1, e.op(OpCode::xor_, e.op(OpCode::xor_, k0, k1), e.u(0x1BD11BDA))};
  x0 = e.op(OpCode::add, x0, ks[0]);
  x1 = e.op(OpCode::add, x1, ks[1]);
  for (int i = 0; i < 5; ++i) {
    for (int r : kRotations[i % 2]) {
      x0 = e.op(OpCode::add, x0, x1);
      ValueRef rotated = e.op(OpCode::or_, e.op(OpCode::shift_left, x1, e.u(r)),
                              e.op(OpCode::shift_right_logical, x1, e.u(32 - r)));
      x1 = e.op(OpCode::xor_, x0, rotated);
    }
    x0 = e.op(OpCode::add, x0, ks[(i + 1) % 3]);
    x1 = e.op(OpCode::add, e.op(OpCode::add, x1, ks[(i + 2) % 3]), e.u(i + 1));
  }
  return {x0, x1};
}

ValueRef reshape(Builder& b, ValueRef x, const std::vector<int64_t>& dims) {
  return b.add(OpCode::reshape, {x}, ReshapeAttrs{Shape(dims)});
}

// The ui64 state as its four u32 words: key low, key high, counter low, counter high.
struct State {
  ValueRef key_lo, key_hi, ctr_lo, ctr_hi;
};

State unpack(Builder& b, ValueRef state) {
  ValueRef w[4];
  for (int64_t i = 0; i < 4; ++i) {
    ValueRef s =
        b.add(OpCode::slice, {state}, SliceAttrs{{i / 2, i % 2}, {i / 2 + 1, i % 2 + 1}, {1, 1}});
    w[i] = reshape(b, s, {});
  }
  return {w[0], w[1], w[2], w[3]};
}

// ctr + n as (low, high) u32 words, n < 2^32 of the shape of `n` (scalars broadcast to it).
std::pair<ValueRef, ValueRef> add_counter(Ops& e, const State& s, ValueRef n) {
  auto wide = [&](ValueRef x) {
    if (e.shape.dims().empty()) return x;
    return e.b.add(OpCode::broadcast_in_dim, {x}, BroadcastInDimAttrs{e.shape, {}});
  };
  ValueRef lo0 = wide(s.ctr_lo), lo = e.op(OpCode::add, lo0, n);
  ValueRef carry = e.convert(e.cmp(CompareDir::lt, lo, lo0), DType::u32);
  return {lo, e.op(OpCode::add, wide(s.ctr_hi), carry)};
}

// XLA's ThreeFry for 32-bit outputs: the counters cover half the shape (split along the first
// even dimension, else the longest; a scalar takes [1]), each threefry2x32 call makes two
// neighbours along that dimension.
struct Half {
  std::vector<int64_t> half, pairs;  // the counters' shape; with the 1 a 2, before the reshape
  int64_t split = 0;
  bool scalar = false;
};

Half halve(const Shape& shape) {
  Half h;
  std::vector<int64_t> d(shape.dims().begin(), shape.dims().end());
  if (d.empty()) {
    h.scalar = true;
    h.half = {1};
    return h;
  }
  h.split = -1;
  for (size_t i = 0; i < d.size() && h.split < 0; ++i)
    if (d[i] % 2 == 0) h.split = static_cast<int64_t>(i);
  if (h.split < 0) {
    h.split = 0;
    for (size_t i = 1; i < d.size(); ++i)
      if (d[i] > d[static_cast<size_t>(h.split)]) h.split = static_cast<int64_t>(i);
  }
  for (size_t i = 0; i < d.size(); ++i) {
    bool at = static_cast<int64_t>(i) == h.split;
    h.half.push_back(at ? (d[i] + 1) / 2 : d[i]);
    h.pairs.push_back(h.half.back());
    if (at) {
      h.half.push_back(1);
      h.pairs.push_back(2);
    }
  }
  return h;
}

std::string algorithm(const OpSyntax& o) {
  for (const char* k : {"rng_algorithm", "algorithm"}) {
    auto it = o.attrs.find(k);
    if (it == o.attrs.end()) continue;
    for (const char* a : {"THREE_FRY", "PHILOX", "DEFAULT"})
      if (it->second.word.find(a) != std::string::npos) return a;
    fail(it->second.pos, "unknown rng_bit_generator algorithm '" + it->second.word + "'");
  }
  fail(o.pos, "rng_bit_generator needs its algorithm (THREE_FRY, PHILOX or DEFAULT)");
}

}  // namespace

Values rng_bit_generator(Builder& b, const OpSyntax& o, Values& in) {
  std::string alg = algorithm(o);
  if (alg == "PHILOX") {
    fail(o.pos,
         "rng_bit_generator PHILOX is not supported: lazax builds THREE_FRY (and DEFAULT, "
         "read as THREE_FRY) from its own ops; export the program with THREE_FRY");
  }
  const TensorType state_type{DType::u32, Shape({2, 2})};
  // Read as u32[2,2] from tensor<2xui64> (parse_lex.cc): two ui64 types are the state's.
  if (in.size() != 1 || !(b.type(in[0]) == state_type) || o.u64_types < 2)
    fail(o.pos, "rng_bit_generator's state must be a tensor<2xui64> (key, counter)");
  if (o.out_types.size() != 2 || !(o.out_types[0] == state_type))
    fail(o.pos, "rng_bit_generator returns the tensor<2xui64> state and the bits");
  const TensorType& t = o.out_types[1];
  bool u64 = o.u64_types == 3;  // the bits are a ui64 tensor too, carried as two u32 words
  State s = unpack(b, in[0]);
  std::vector<int64_t> dims(t.shape.dims().begin(), t.shape.dims().end());
  if (u64) dims.pop_back();
  Half h;
  if (u64 || t.dtype == DType::i64)
    h.half = dims;  // 64-bit outputs: one counter per element, the two words the value
  else if (t.dtype == DType::u32 || t.dtype == DType::i32)
    h = halve(Shape(dims));
  else
    fail(o.pos, "rng_bit_generator makes ui32, i32, ui64 or i64 bits here, not " + t.str());
  int64_t n = Shape(h.half).numel();
  if (n >= (int64_t{1} << 32)) fail(o.pos, "rng_bit_generator of 2^32 counters or more");

  Ops e{b, Shape(h.half), {}};
  ValueRef idx = b.add(OpCode::iota, {}, IotaAttrs{DType::u32, Shape({n}), 0});
  if (h.half.size() != 1) idx = reshape(b, idx, h.half);
  auto [x0, x1] = add_counter(e, s, idx);
  auto wide = [&](ValueRef k) {
    return b.add(OpCode::broadcast_in_dim, {k}, BroadcastInDimAttrs{e.shape, {}});
  };
  auto [y0, y1] = threefry2x32(e, wide(s.key_lo), wide(s.key_hi), x0, x1);

  ValueRef bits;
  if (u64) {
    std::vector<int64_t> one = h.half;
    one.push_back(1);
    bits = b.add(OpCode::concatenate, {reshape(b, y0, one), reshape(b, y1, one)},
                 ConcatenateAttrs{static_cast<int64_t>(h.half.size())});
  } else if (t.dtype == DType::i64) {
    bits = e.op(OpCode::or_, e.convert(y0, DType::i64),
                e.op(OpCode::shift_left, e.convert(y1, DType::i64), e.k(DType::i64, 32)));
  } else if (h.scalar) {
    bits = reshape(b, y0, {});
  } else {
    bits = b.add(OpCode::concatenate, {y0, y1}, ConcatenateAttrs{h.split + 1});
    std::vector<int64_t> even = dims;
    auto at = static_cast<size_t>(h.split);
    even[at] = h.pairs[at] * 2;
    bits = reshape(b, bits, even);
    if (even[at] != dims[at]) {
      IntList zero(dims.size(), 0), limit(dims.begin(), dims.end()), step(dims.size(), 1);
      bits = b.add(OpCode::slice, {bits}, SliceAttrs{zero, limit, step});
    }
  }
  if (t.dtype == DType::i32) bits = b.add(OpCode::convert, {bits}, ConvertAttrs{DType::i32});

  // The next state: the key, and the counter moved past the n used.
  Ops one{b, Shape(), {}};
  auto [lo, hi] = add_counter(one, s, one.u(static_cast<double>(n)));
  Values words;
  for (ValueRef w : {s.key_lo, s.key_hi, lo, hi}) words.push_back(reshape(b, w, {1}));
  ValueRef next = reshape(b, b.add(OpCode::concatenate, words, ConcatenateAttrs{0}), {2, 2});
  return {next, bits};
}

}  // namespace lazax::stablehlo
