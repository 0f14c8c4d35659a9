// The importer's rows for random bits. lazax has no bitcast primitive and no u64, so:
// - bitcast_convert between integers of one width is a convert (which wraps); (u)i32 -> f32
//   is rebuilt exactly from the sign, exponent and mantissa fields (what jax.random.uniform
//   needs), f32 -> (u)i32 by scaling into [1, 2) with exact powers of two; a tensor<Sxui64> is
//   carried as its two ui32 words (parse_lex.cc), so ui64 <-> ui32 pairs is no op at all.
// - rng_bit_generator THREE_FRY is threefry2x32-20 written in add/xor/shift ops, PHILOX
//   philox4x32-10 with its products as wrapping i64 multiplies, each with the key, counter and
//   state rules of XLA's expander (docs/STABLEHLO.md says which).
#include <array>
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

// The u32 bits of the f32 x, exact: |x| scaled into [1, 2) by exact powers of two (the
// exponent counted on the way), the mantissa read off the scaled value; subnormals scaled by
// 2^149. A NaN gives the quiet NaN 0x7FC00000 (its sign and payload are not observable with
// lazax's ops); -0 is told from +0 by the sign of 1/x.
ValueRef f32_to_bits(Ops& e, ValueRef x) {
  ValueRef a = e.b.add(OpCode::abs, {x}), y = a, exponent = e.u(127);
  for (int p = 64; p >= 1; p /= 2) {  // down to below 2
    ValueRef big = e.cmp(CompareDir::ge, y, e.f(std::ldexp(1.0, p)));
    y = e.select(big, e.op(OpCode::mul, y, e.f(std::ldexp(1.0, -p))), y);
    exponent = e.select(big, e.op(OpCode::add, exponent, e.u(p)), exponent);
  }
  for (int p = 64; p >= 1; p /= 2) {  // up to 1 or more (a normal |x| is at least 2^-126)
    ValueRef small = e.cmp(CompareDir::lt, y, e.f(std::ldexp(1.0, 1 - p)));
    y = e.select(small, e.op(OpCode::mul, y, e.f(std::ldexp(1.0, p))), y);
    exponent = e.select(small, e.op(OpCode::sub, exponent, e.u(p)), exponent);
  }
  ValueRef mantissa =
      e.convert(e.op(OpCode::mul, e.op(OpCode::sub, y, e.f(1)), e.f(0x1p23)), DType::u32);  // exact
  ValueRef normal = e.op(OpCode::or_, e.op(OpCode::shift_left, exponent, e.u(23)), mantissa);
  ValueRef sub =
      e.convert(e.op(OpCode::mul, e.op(OpCode::mul, a, e.f(0x1p100)), e.f(0x1p49)), DType::u32);
  ValueRef bits =
      e.select(e.cmp(CompareDir::ne, x, x), e.u(0x7FC00000),
               e.select(e.cmp(CompareDir::eq, a, e.f(INFINITY)), e.u(0x7F800000),
                        e.select(e.cmp(CompareDir::lt, a, e.f(0x1p-126)), sub, normal)));
  ValueRef negative = e.op(OpCode::or_, e.cmp(CompareDir::lt, x, e.f(0)),
                           e.cmp(CompareDir::lt, e.op(OpCode::div, e.f(1), x), e.f(0)));
  return e.op(OpCode::or_, bits, e.select(negative, e.u(0x80000000u), e.u(0)));
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
  if (same_shape && from.dtype == DType::f32 &&
      (to.dtype == DType::u32 || to.dtype == DType::i32)) {
    Ops e{b, from.shape, {}};
    ValueRef bits = f32_to_bits(e, in[0]);
    return {to.dtype == DType::u32 ? bits : e.convert(bits, DType::i32)};
  }
  fail(o.pos, "bitcast_convert from " + from.str() + " to " + to.str() +
                  " is not supported: lazax has no bitcast primitive; the importer rebuilds "
                  "integer <-> integer of one width, ui32/i32 <-> f32 and ui64 <-> ui32 pairs");
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

// The ui64 state's rows as u32 words, low first: key low, key high, then each further row's two.
std::vector<ValueRef> unpack(Builder& b, ValueRef state, int64_t rows) {
  std::vector<ValueRef> w;
  for (int64_t i = 0; i < 2 * rows; ++i) {
    ValueRef s =
        b.add(OpCode::slice, {state}, SliceAttrs{{i / 2, i % 2}, {i / 2 + 1, i % 2 + 1}, {1, 1}});
    w.push_back(reshape(b, s, {}));
  }
  return w;
}

ValueRef pack(Builder& b, const std::vector<ValueRef>& words) {
  Values w;
  for (ValueRef x : words) w.push_back(reshape(b, x, {1}));
  auto rows = static_cast<int64_t>(words.size() / 2);
  return reshape(b, b.add(OpCode::concatenate, w, ConcatenateAttrs{0}), {rows, 2});
}

// The multi-word counter c (u32 scalars, low word first) plus n (u32 < 2^32, of e's shape),
// each word broadcast to that shape; the carry out of the top word is dropped (it wraps).
std::vector<ValueRef> add_counter(Ops& e, std::vector<ValueRef> c, ValueRef n) {
  for (ValueRef& w : c) {
    if (e.shape.dims().empty()) break;
    w = e.b.add(OpCode::broadcast_in_dim, {w}, BroadcastInDimAttrs{e.shape, {}});
  }
  ValueRef carry = n;
  for (ValueRef& w : c) {
    ValueRef sum = e.op(OpCode::add, w, carry);
    carry = e.convert(e.cmp(CompareDir::lt, sum, w), DType::u32);
    w = sum;
  }
  return c;
}

// Philox4x32-10 (Salmon et al., SC 2011): each round two 32x32 -> 64-bit products, taken in i64
// (whose multiplication wraps, so the 64 bits are exact), the key bumped between rounds.
std::array<ValueRef, 4> philox4x32(Ops& e, std::array<ValueRef, 4> x, ValueRef k0, ValueRef k1) {
  auto mulhilo = [&](ValueRef v, uint32_t m) {
    ValueRef p = e.op(OpCode::mul, e.convert(v, DType::i64), e.k(DType::i64, m));
    ValueRef hi = e.op(OpCode::shift_right_logical, p, e.k(DType::i64, 32));
    return std::make_pair(e.convert(hi, DType::u32), e.convert(p, DType::u32));
  };
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 = e.op(OpCode::add, k0, e.u(0x9E3779B9));
      k1 = e.op(OpCode::add, k1, e.u(0xBB67AE85));
    }
    auto [hi0, lo0] = mulhilo(x[0], 0xD2511F53u);
    auto [hi1, lo1] = mulhilo(x[2], 0xCD9E8D57u);
    x = {e.op(OpCode::xor_, e.op(OpCode::xor_, hi1, x[1]), k0), lo1,
         e.op(OpCode::xor_, e.op(OpCode::xor_, hi0, x[3]), k1), lo0};
  }
  return x;
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

bool is_threefry_target(const std::string& target) {
  for (const char* t :
       {"cu_threefry2x32", "cu_threefry2x32_ffi", "hip_threefry2x32", "hip_threefry2x32_ffi"}) {
    if (target == t) return true;
  }
  return false;
}

Values threefry_call(Builder& b, const OpSyntax& o, Values& in) {
  std::string name = "stablehlo.custom_call @" + o.attrs.at("call_target_name").word;
  if (in.size() != 4) fail(o.pos, name + " (threefry2x32) takes key0, key1, x0 and x1");
  const TensorType& t = b.type(in[0]);
  for (ValueRef v : in) {
    if (!(b.type(v) == t) || t.dtype != DType::u32)
      fail(o.pos, name + ": threefry2x32's operands are ui32 tensors of one shape, got " +
                      b.type(v).str() + " beside " + t.str());
  }
  Ops e{b, t.shape, {}};
  auto [y0, y1] = threefry2x32(e, in[0], in[1], in[2], in[3]);
  return {y0, y1};
}

namespace {

// The bits asked for: 32-bit words as ui32 or i32, 64-bit ones as i64 or as ui64's two words.
enum class Bits { u32, i32, i64, u64_words };

// The 64-bit bits from their (low, high) words: ui64 as the two words (a trailing 2), i64 as one.
ValueRef wide_bits(Ops& e, ValueRef lo, ValueRef hi, Bits kind, std::vector<int64_t> dims) {
  if (kind == Bits::i64) {
    return e.op(OpCode::or_, e.convert(lo, DType::i64),
                e.op(OpCode::shift_left, e.convert(hi, DType::i64), e.k(DType::i64, 32)));
  }
  dims.push_back(1);
  return e.b.add(OpCode::concatenate, {reshape(e.b, lo, dims), reshape(e.b, hi, dims)},
                 ConcatenateAttrs{static_cast<int64_t>(dims.size()) - 1});
}

// THREE_FRY: state (key, counter); the counters cover the shape halved (32-bit bits) or the
// shape (64-bit), and move by the number used.
Values threefry_bits(Builder& b, const OpSyntax& o, const std::vector<ValueRef>& s, Bits kind,
                     const std::vector<int64_t>& dims) {
  bool wide = kind == Bits::u64_words || kind == Bits::i64;
  Half h;
  if (wide)
    h.half = dims;  // one counter per element, its two words the value
  else
    h = halve(Shape(dims));
  int64_t n = Shape(h.half).numel();
  if (n >= (int64_t{1} << 32)) fail(o.pos, "rng_bit_generator of 2^32 counters or more");
  Ops e{b, Shape(h.half), {}};
  ValueRef idx = b.add(OpCode::iota, {}, IotaAttrs{DType::u32, Shape({n}), 0});
  if (h.half.size() != 1) idx = reshape(b, idx, h.half);
  std::vector<ValueRef> x = add_counter(e, {s[2], s[3]}, idx);
  auto key = [&](ValueRef k) {
    return b.add(OpCode::broadcast_in_dim, {k}, BroadcastInDimAttrs{e.shape, {}});
  };
  auto [y0, y1] = threefry2x32(e, key(s[0]), key(s[1]), x[0], x[1]);

  ValueRef bits;
  if (wide) {
    bits = wide_bits(e, y0, y1, kind, h.half);
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
  Ops one{b, Shape(), {}};
  std::vector<ValueRef> next = add_counter(one, {s[2], s[3]}, one.u(static_cast<double>(n)));
  return {pack(b, {s[0], s[1], next[0], next[1]}), bits};
}

// PHILOX, as XLA's expander: the key is state[0]; the 128-bit counter is (state[1], state[0])
// for a 2-word state (the key its high half) or (state[1], state[2]) for 3, low half first.
// Block j runs philox4x32-10 on counter + j and gives 4 words; the words of blocks 0, 1, ...
// in order are the elements (32-bit) or their (low, high) pairs (64-bit). The next state keeps
// the key and the counter moved by the blocks used (for 2 words, its low half only).
Values philox_bits(Builder& b, const OpSyntax& o, const std::vector<ValueRef>& s, Bits kind,
                   const std::vector<int64_t>& dims) {
  bool wide = kind == Bits::u64_words || kind == Bits::i64;
  int64_t n = Shape(dims).numel(), words = wide ? 2 * n : n, blocks = (words + 3) / 4;
  if (blocks >= (int64_t{1} << 32)) fail(o.pos, "rng_bit_generator of 2^32 blocks or more");
  bool three = s.size() == 6;
  std::vector<ValueRef> ctr = {s[2], s[3], three ? s[4] : s[0], three ? s[5] : s[1]};
  Ops e{b, Shape({blocks}), {}};
  ValueRef idx = b.add(OpCode::iota, {}, IotaAttrs{DType::u32, Shape({blocks}), 0});
  std::vector<ValueRef> x = add_counter(e, ctr, idx);
  auto key = [&](ValueRef k) {
    return b.add(OpCode::broadcast_in_dim, {k}, BroadcastInDimAttrs{e.shape, {}});
  };
  std::array<ValueRef, 4> y = philox4x32(e, {x[0], x[1], x[2], x[3]}, key(s[0]), key(s[1]));
  Values cols;
  for (ValueRef w : y) cols.push_back(reshape(b, w, {blocks, 1}));
  ValueRef stream = reshape(b, b.add(OpCode::concatenate, cols, ConcatenateAttrs{1}), {4 * blocks});
  auto take = [&](int64_t start, int64_t count, int64_t step) {
    int64_t limit = count == 0 ? start : start + step * (count - 1) + 1;
    return b.add(OpCode::slice, {stream}, SliceAttrs{{start}, {limit}, {step}});
  };
  ValueRef bits;
  if (kind == Bits::u64_words) {
    std::vector<int64_t> pairs = dims;
    pairs.push_back(2);
    bits = reshape(b, take(0, words, 1), pairs);
  } else if (kind == Bits::i64) {
    Ops w{b, Shape({n}), {}};
    bits = reshape(b, wide_bits(w, take(0, n, 2), take(1, n, 2), kind, {n}), dims);
  } else {
    bits = reshape(b, take(0, n, 1), dims);
  }
  Ops one{b, Shape(), {}};
  std::vector<ValueRef> next = add_counter(one, ctr, one.u(static_cast<double>(blocks)));
  if (three) return {pack(b, {s[0], s[1], next[0], next[1], next[2], next[3]}), bits};
  return {pack(b, {s[0], s[1], next[0], next[1]}), bits};
}

}  // namespace

Values rng_bit_generator(Builder& b, const OpSyntax& o, Values& in) {
  std::string alg = algorithm(o);
  bool philox = alg == "PHILOX";
  // A tensor<Rxui64> state is read as u32[R,2] (parse_lex.cc): two ui64 types are the state's.
  if (in.size() != 1) fail(o.pos, "rng_bit_generator takes one operand, the state");
  const TensorType& st = b.type(in[0]);
  int64_t rows = st.shape.dims().size() == 2 ? st.shape.dims()[0] : 0;
  if (o.u64_types < 2 || st.dtype != DType::u32 || !(rows == 2 || (philox && rows == 3)) ||
      st.shape.dims()[1] != 2) {
    fail(o.pos, std::string("rng_bit_generator's state must be a tensor<2xui64> (key, counter)") +
                    (philox ? " or tensor<3xui64> (key, counter low, counter high)" : ""));
  }
  if (o.out_types.size() != 2 || !(o.out_types[0] == st))
    fail(o.pos, "rng_bit_generator returns the state, of its operand's type, and the bits");
  const TensorType& t = o.out_types[1];
  std::vector<int64_t> dims(t.shape.dims().begin(), t.shape.dims().end());
  Bits kind = t.dtype == DType::i32 ? Bits::i32 : t.dtype == DType::i64 ? Bits::i64 : Bits::u32;
  if (o.u64_types == 3) {  // the bits are a ui64 tensor too, carried as two u32 words
    dims.pop_back();
    kind = Bits::u64_words;
  } else if (t.dtype != DType::u32 && t.dtype != DType::i32 && t.dtype != DType::i64) {
    fail(o.pos, "rng_bit_generator makes ui32, i32, ui64 or i64 bits here, not " + t.str());
  }
  std::vector<ValueRef> s = unpack(b, in[0], rows);
  Values out = philox ? philox_bits(b, o, s, kind, dims) : threefry_bits(b, o, s, kind, dims);
  if (kind == Bits::i32) out[1] = b.add(OpCode::convert, {out[1]}, ConvertAttrs{DType::i32});
  return out;
}

}  // namespace lazax::stablehlo
