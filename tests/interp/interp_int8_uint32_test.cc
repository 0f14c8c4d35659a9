// Reference-interpreter tests of the i8 and u32 dtypes: wrap-around arithmetic, truncating
// division and remainder, unsigned comparison and extremes, bitwise ops and shifts, conversions
// to and from every dtype, reductions, dot and random bits. The expected values were computed
// with NumPy 1.24 (Debian's python3-numpy) from the same inputs, except where lax's semantics
// differ from NumPy's (division by zero, out-of-range shift amounts, float -> int out of range),
// which are written out by hand and say so.
#include <cstdint>

#include "interp_test_util.h"
#include "lazax/ir/attrs.h"

using namespace lazax;
using namespace lazax::interp_test;

namespace {

using I = std::vector<int64_t>;

Literal i8s(const std::vector<int8_t>& v) { return lit<int8_t>(v); }
Literal u32s(const std::vector<uint32_t>& v) { return lit<uint32_t>(v); }
// Elements as int64 (exact for i8 and u32), with the dtype checked.
I ints(const Literal& l, DType want) {
  EXPECT_EQ(l.dtype(), want);
  return l.to_vector<int64_t>();
}
Literal binary(OpCode op, const Literal& a, const Literal& b) { return run1(op, {a, b}); }
Literal unary(OpCode op, const Literal& x) { return run1(op, {x}); }
Literal conv(const Literal& x, DType t) { return run1(OpCode::convert, {x}, ConvertAttrs{t}); }

}  // namespace

TEST(InterpInt8, ArithmeticWraps) {
  auto a = i8s({127, -128, 100, -1, 7, -7});
  auto b = i8s({1, -1, 100, 1, 2, 2});
  EXPECT_EQ(ints(binary(OpCode::add, a, b), DType::i8), (I{-128, 127, -56, 0, 9, -5}));
  EXPECT_EQ(ints(binary(OpCode::sub, a, b), DType::i8), (I{126, -127, 0, -2, 5, -9}));
  EXPECT_EQ(ints(binary(OpCode::mul, a, b), DType::i8), (I{127, -128, 16, -1, 14, -14}));
  auto n = i8s({-128, -1, 0, 1, 127});
  EXPECT_EQ(ints(unary(OpCode::neg, n), DType::i8), (I{-128, 1, 0, -1, -127}));
  EXPECT_EQ(ints(unary(OpCode::abs, n), DType::i8), (I{-128, 1, 0, 1, 127}));
  EXPECT_EQ(ints(unary(OpCode::sign, n), DType::i8), (I{-1, -1, 0, 1, 1}));
}

TEST(InterpInt8, DivisionTruncatesAndRemainderTakesTheDividendsSign) {
  auto x = i8s({7, -7, 7, -7, -128, 127, -128});
  auto y = i8s({2, 2, -2, -2, 3, -128, 127});
  EXPECT_EQ(ints(binary(OpCode::div, x, y), DType::i8), (I{3, -3, -3, 3, -42, 0, -1}));
  EXPECT_EQ(ints(binary(OpCode::rem, x, y), DType::i8), (I{1, -1, 1, -1, -2, 127, -1}));
  // lax, not NumPy (which warns and gives 0): x / 0 = 0, x % 0 = x; MIN / -1 wraps to MIN.
  auto e = i8s({5, -128, -128});
  auto z = i8s({0, 0, -1});
  EXPECT_EQ(ints(binary(OpCode::div, e, z), DType::i8), (I{0, 0, -128}));
  EXPECT_EQ(ints(binary(OpCode::rem, e, z), DType::i8), (I{5, -128, 0}));
}

TEST(InterpInt8, CompareMaxMinBitwise) {
  auto p = i8s({-128, -1, 0, 5, 127});
  auto q = i8s({127, 0, 0, -6, -128});
  EXPECT_EQ(ints(binary(OpCode::max, p, q), DType::i8), (I{127, 0, 0, 5, 127}));
  EXPECT_EQ(ints(binary(OpCode::min, p, q), DType::i8), (I{-128, -1, 0, -6, -128}));
  auto lt = run1(OpCode::compare, {p, q}, CompareAttrs{CompareDir::lt});
  EXPECT_EQ(ints(lt, DType::boolean), (I{1, 1, 0, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::and_, p, q), DType::i8), (I{0, 0, 0, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::or_, p, q), DType::i8), (I{-1, -1, 0, -1, -1}));
  EXPECT_EQ(ints(binary(OpCode::xor_, p, q), DType::i8), (I{-1, -1, 0, -1, -1}));
  EXPECT_EQ(ints(unary(OpCode::not_, p), DType::i8), (I{127, 0, -1, -6, -128}));
}

TEST(InterpInt8, ShiftsOnEightBits) {
  auto s = i8s({1, -128, -1, 5, -5, 64, 3});
  auto k = i8s({7, 1, 0, 1, 2, 1, 6});
  EXPECT_EQ(ints(binary(OpCode::shift_left, s, k), DType::i8),
            (I{-128, 0, -1, 10, -20, -128, -64}));
  EXPECT_EQ(ints(binary(OpCode::shift_right_arithmetic, s, k), DType::i8),
            (I{0, -64, -1, 2, -2, 32, 0}));
  EXPECT_EQ(ints(binary(OpCode::shift_right_logical, s, k), DType::i8),
            (I{0, 64, -1, 2, 62, 32, 0}));
  // lax: an amount < 0 or >= 8 gives 0 (left, logical) or copies of the sign bit (arithmetic).
  auto big = i8s({-5, 5, -5, 5});
  auto out = i8s({8, 9, -1, 127});
  EXPECT_EQ(ints(binary(OpCode::shift_left, big, out), DType::i8), (I{0, 0, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::shift_right_logical, big, out), DType::i8), (I{0, 0, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::shift_right_arithmetic, big, out), DType::i8), (I{-1, 0, -1, 0}));
}

TEST(InterpUint32, ArithmeticWraps) {
  auto a = u32s({4294967295u, 0, 65536, 3000000000u});
  auto b = u32s({1, 1, 65536, 3000000000u});
  EXPECT_EQ(ints(binary(OpCode::add, a, b), DType::u32), (I{0, 1, 131072, 1705032704}));
  EXPECT_EQ(ints(binary(OpCode::sub, a, b), DType::u32), (I{4294967294, 4294967295, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::mul, a, b), DType::u32), (I{4294967295, 0, 0, 3800301568}));
  auto n = u32s({0, 1, 2147483648u, 4294967295u});
  EXPECT_EQ(ints(unary(OpCode::neg, n), DType::u32), (I{0, 4294967295, 2147483648, 1}));
  EXPECT_EQ(ints(unary(OpCode::abs, n), DType::u32), (I{0, 1, 2147483648, 4294967295}));
  EXPECT_EQ(ints(unary(OpCode::sign, n), DType::u32), (I{0, 1, 1, 1}));
}

TEST(InterpUint32, DivisionRemainderAndUnsignedOrder) {
  auto x = u32s({4294967295u, 7, 3000000000u, 5, 9});
  auto y = u32s({2, 2, 7, 4294967295u, 0});
  EXPECT_EQ(ints(binary(OpCode::div, x, y), DType::u32), (I{2147483647, 3, 428571428, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::rem, x, y), DType::u32), (I{1, 1, 4, 5, 9}));  // x % 0 = x
  auto p = u32s({4294967295u, 1, 2147483648u, 0});
  auto q = u32s({1, 4294967295u, 2147483647u, 0});
  EXPECT_EQ(ints(binary(OpCode::max, p, q), DType::u32),
            (I{4294967295, 4294967295, 2147483648, 0}));
  EXPECT_EQ(ints(binary(OpCode::min, p, q), DType::u32), (I{1, 1, 2147483647, 0}));
  auto gt = run1(OpCode::compare, {p, q}, CompareAttrs{CompareDir::gt});
  EXPECT_EQ(ints(gt, DType::boolean), (I{1, 0, 1, 0}));
  EXPECT_EQ(ints(unary(OpCode::not_, p), DType::u32), (I{0, 4294967294, 2147483647, 4294967295}));
  EXPECT_EQ(ints(binary(OpCode::xor_, p, q), DType::u32),
            (I{4294967294, 4294967294, 4294967295, 0}));
}

TEST(InterpUint32, Shifts) {
  auto s = u32s({1, 2147483648u, 4294967295u, 5, 5, 2147483648u});
  auto k = u32s({31, 31, 4, 1, 32, 4294967295u});
  // The last two amounts are out of range (lax: 0, or copies of the top bit for arithmetic).
  EXPECT_EQ(ints(binary(OpCode::shift_left, s, k), DType::u32),
            (I{2147483648, 0, 4294967280, 10, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::shift_right_logical, s, k), DType::u32),
            (I{0, 1, 268435455, 2, 0, 0}));
  EXPECT_EQ(ints(binary(OpCode::shift_right_arithmetic, s, k), DType::u32),
            (I{0, 4294967295, 4294967295, 2, 0, 4294967295}));
}

TEST(InterpInt8Uint32, ConvertsToEveryDType) {
  auto c8 = i8s({-128, -1, 0, 1, 127});
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64})
    EXPECT_EQ(ints(conv(c8, t), t), (I{-128, -1, 0, 1, 127})) << dtype_name(t);
  EXPECT_EQ(ints(conv(c8, DType::u8), DType::u8), (I{128, 255, 0, 1, 127}));
  EXPECT_EQ(ints(conv(c8, DType::u32), DType::u32), (I{4294967168, 4294967295, 0, 1, 127}));
  EXPECT_EQ(ints(conv(c8, DType::boolean), DType::boolean), (I{1, 1, 0, 1, 1}));

  auto c32 = u32s({0, 1, 2147483648u, 4294967295u, 16777217});
  EXPECT_EQ(conv(c32, DType::f32).to_vector<double>(),
            (std::vector<double>{0, 1, 2147483648.0, 4294967296.0, 16777216.0}));
  EXPECT_EQ(ints(conv(c32, DType::f64), DType::f64), (I{0, 1, 2147483648, 4294967295, 16777217}));
  EXPECT_EQ(conv(c32, DType::f16).to_vector<double>(),
            (std::vector<double>{0, 1, INFINITY, INFINITY, INFINITY}));
  // bf16 keeps 8 significant bits: 2^32 - 1 and 2^24 + 1 round to 2^32 and 2^24.
  EXPECT_EQ(conv(c32, DType::bf16).to_vector<double>(),
            (std::vector<double>{0, 1, 2147483648.0, 4294967296.0, 16777216.0}));
  EXPECT_EQ(ints(conv(c32, DType::i32), DType::i32), (I{0, 1, -2147483648, -1, 16777217}));
  EXPECT_EQ(ints(conv(c32, DType::i64), DType::i64), (I{0, 1, 2147483648, 4294967295, 16777217}));
  EXPECT_EQ(ints(conv(c32, DType::u8), DType::u8), (I{0, 1, 0, 255, 1}));
  EXPECT_EQ(ints(conv(c32, DType::i8), DType::i8), (I{0, 1, 0, -1, 1}));
  EXPECT_EQ(ints(conv(c32, DType::boolean), DType::boolean), (I{0, 1, 1, 1, 1}));
}

TEST(InterpInt8Uint32, ConvertsFromEveryDType) {
  EXPECT_EQ(ints(conv(lit<int32_t>({300, -129, 255, 128}), DType::i8), DType::i8),
            (I{44, 127, -1, -128}));
  EXPECT_EQ(
      ints(conv(lit<int64_t>({-1, 4294967296, 4294967297, -4294967295}), DType::u32), DType::u32),
      (I{4294967295, 0, 1, 1}));
  EXPECT_EQ(ints(conv(lit<uint8_t>({200, 128, 127}), DType::i8), DType::i8), (I{-56, -128, 127}));
  EXPECT_EQ(ints(conv(lit<uint8_t>({200, 0}), DType::u32), DType::u32), (I{200, 0}));
  EXPECT_EQ(ints(conv(lit<bool>({true, false}), DType::i8), DType::i8), (I{1, 0}));
  EXPECT_EQ(ints(conv(lit<bool>({true, false}), DType::u32), DType::u32), (I{1, 0}));
  EXPECT_EQ(ints(conv(i8s({-1, 5}), DType::u32), DType::u32), (I{4294967295, 5}));
  EXPECT_EQ(ints(conv(u32s({4294967295u, 5}), DType::i8), DType::i8), (I{-1, 5}));
  // Floats (lax, not NumPy's wrap): truncate toward zero, clamp out of range, NaN -> 0.
  auto f = lit<float>({-129.5f, -128.9f, -1.5f, 0.7f, 127.9f, 128, kNaN, kInf});
  EXPECT_EQ(ints(conv(f, DType::i8), DType::i8), (I{-128, -128, -1, 0, 127, 127, 0, 127}));
  auto d = lit<double>({-1.0, 4294967296.0, 3.9, NAN, 4294967295.0, -kInf});
  EXPECT_EQ(ints(conv(d, DType::u32), DType::u32), (I{0, 4294967295, 3, 0, 4294967295, 0}));
  auto h = halfs<f16>({-3.5f, 65504.0f});
  EXPECT_EQ(ints(conv(h, DType::i8), DType::i8), (I{-3, 127}));
  EXPECT_EQ(ints(conv(h, DType::u32), DType::u32), (I{0, 65504}));
  auto g = halfs<bf16>({-2.0f, 3.0e9f});
  EXPECT_EQ(ints(conv(g, DType::u32), DType::u32), (I{0, 3003121664}));  // bf16(3e9)
}

TEST(InterpInt8Uint32, ReductionsScansSortAndArgmax) {
  auto sum = [](const Literal& x) { return run1(OpCode::reduce_sum, {x}, ReduceAttrs{{0}}); };
  EXPECT_EQ(ints(sum(i8s({100, 100, 100})), DType::i8), (I{44}));
  EXPECT_EQ(ints(sum(u32s({4294967295u, 2, 3})), DType::u32), (I{4}));
  EXPECT_EQ(ints(run1(OpCode::reduce_prod, {i8s({16, 16, 3})}, ReduceAttrs{{0}}), DType::i8),
            (I{0}));
  auto cs = run1(OpCode::cumsum, {u32s({4294967295u, 2, 3})}, CumsumAttrs{0, false});
  EXPECT_EQ(ints(cs, DType::u32), (I{4294967295, 1, 4}));
  // Unsigned order: 2^31 and 2^32 - 1 are above 7 (they would not be as i32).
  auto mx = run1(OpCode::reduce_max, {u32s({5, 4294967295u, 2147483648u, 7})}, ReduceAttrs{{0}});
  EXPECT_EQ(ints(mx, DType::u32), (I{4294967295}));
  auto am =
      run1(OpCode::argmax, {u32s({5, 4294967295u, 2147483648u, 7})}, ArgmaxAttrs{0, DType::i32});
  EXPECT_EQ(ints(am, DType::i32), (I{1}));
  auto sorted = run_op(OpCode::sort, {u32s({4294967295u, 0, 2147483648u, 7})}, SortAttrs{0, false});
  EXPECT_EQ(ints(sorted[0], DType::u32), (I{0, 7, 2147483648, 4294967295}));
  EXPECT_EQ(ints(sorted[1], DType::i64), (I{1, 3, 2, 0}));
  // Empty reductions give the identities: the extremes of the dtype.
  auto empty8 = Literal::zeros(TensorType{DType::i8, Shape{0}});
  auto empty32 = Literal::zeros(TensorType{DType::u32, Shape{0}});
  EXPECT_EQ(ints(run1(OpCode::reduce_max, {empty8}, ReduceAttrs{{0}}), DType::i8), (I{-128}));
  EXPECT_EQ(ints(run1(OpCode::reduce_min, {empty8}, ReduceAttrs{{0}}), DType::i8), (I{127}));
  EXPECT_EQ(ints(run1(OpCode::reduce_min, {empty32}, ReduceAttrs{{0}}), DType::u32),
            (I{4294967295}));
  EXPECT_EQ(ints(run1(OpCode::reduce_max, {empty32}, ReduceAttrs{{0}}), DType::u32), (I{0}));
}

TEST(InterpInt8Uint32, DotWrapsAndIotaConverts) {
  DotGeneralAttrs dot;
  dot.lhs_contracting = {0};
  dot.rhs_contracting = {0};
  auto r = run1(OpCode::dot_general, {i8s({100, 100, -128}), i8s({2, 1, 1})}, dot);
  EXPECT_EQ(ints(r, DType::i8), (I{-84}));
  auto u = run1(OpCode::dot_general, {u32s({4294967295u, 2}), u32s({2, 3})}, dot);
  EXPECT_EQ(ints(u, DType::u32), (I{4}));
  auto io = run1(OpCode::iota, {}, IotaAttrs{DType::i8, Shape{300}, 0});
  EXPECT_EQ(io.to_vector<int64_t>()[200], -56);  // wraps as convert does
}

// u32 bits are the i32 words unsigned; i8 bits the u8 bytes signed (same key, same stream).
TEST(InterpInt8Uint32, RandomBitsShareTheStream) {
  auto key = Literal::from_vector<int64_t>({1234, 5}, Shape{2});
  auto draw = [&](DType t) {
    return run_op(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{9}, t});
  };
  auto s32 = draw(DType::i32), w32 = draw(DType::u32), s8 = draw(DType::u8), w8 = draw(DType::i8);
  for (int64_t i = 0; i < 9; ++i) {
    EXPECT_EQ(w32[0].data<uint32_t>()[i], static_cast<uint32_t>(s32[0].data<int32_t>()[i]));
    EXPECT_EQ(w8[0].data<int8_t>()[i], static_cast<int8_t>(s8[0].data<uint8_t>()[i]));
  }
  EXPECT_TRUE(w32[1].bit_equal(s32[1]));  // the same number of blocks used
  EXPECT_TRUE(w8[1].bit_equal(s8[1]));
}
