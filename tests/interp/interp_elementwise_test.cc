// Reference-interpreter tests of constant, iota and the elementwise ops: hand-computed values,
// NaN/inf/-0, integer wrap-around and division edge cases, f16/bf16 rounding, empty and rank-0
// shapes.
#include <cstdint>

#include "interp_test_util.h"

using namespace lazax;
using namespace lazax::interp_test;

namespace {
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

Literal unary(OpCode op, const Literal& x) { return run1(op, {x}); }
Literal binary(OpCode op, const Literal& a, const Literal& b) { return run1(op, {a, b}); }
}  // namespace

TEST(InterpElementwise, Constant) {
  Builder b;
  auto value = lit<float>({1, 2, 3, 4}, Shape{2, 2});
  auto c = b.constant(value);
  auto f = b.build({c});
  auto out = interpret(*f, std::vector<Literal>{});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].bit_equal(value));
  auto s = run1(OpCode::constant, {}, ConstantAttrs{Literal::scalar<int64_t>(-7)});
  EXPECT_EQ(raw<int64_t>(s), (std::vector<int64_t>{-7}));
}

TEST(InterpElementwise, Iota) {
  auto d0 = run1(OpCode::iota, {}, IotaAttrs{DType::i32, Shape{2, 3}, 0});
  EXPECT_EQ(raw<int32_t>(d0), (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
  auto d1 = run1(OpCode::iota, {}, IotaAttrs{DType::i64, Shape{2, 3}, 1});
  EXPECT_EQ(raw<int64_t>(d1), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  auto f = run1(OpCode::iota, {}, IotaAttrs{DType::f32, Shape{4}, 0});
  EXPECT_EQ(floats(f), (std::vector<float>{0, 1, 2, 3}));
  auto h = run1(OpCode::iota, {}, IotaAttrs{DType::bf16, Shape{1, 300}, 1});
  EXPECT_EQ(floats(h)[257], 256.0f);  // 257 is not a bf16: rounds to even
  auto u = run1(OpCode::iota, {}, IotaAttrs{DType::u8, Shape{300}, 0});
  EXPECT_EQ(raw<uint8_t>(u)[257], 1);  // wraps as convert does
  auto e = run1(OpCode::iota, {}, IotaAttrs{DType::f16, Shape{0, 3}, 1});
  EXPECT_EQ(e.numel(), 0);
}

TEST(InterpElementwise, AddSubMulFloat) {
  auto a = lit<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto b = lit<float>({0.5f, -2, kInf, kNaN, -0.0f, 1e38f}, Shape{2, 3});
  expect_same(binary(OpCode::add, a, b), {1.5, 0, INFINITY, NAN, 5, 1e38f + 6.0f});
  expect_same(binary(OpCode::sub, a, b), {0.5, 4, -INFINITY, NAN, 5, -(1e38f - 6.0f)});
  expect_same(binary(OpCode::mul, a, b), {0.5, -4, INFINITY, NAN, -0.0, INFINITY});
  auto d = lit<double>({1e300, -0.0});
  expect_same(binary(OpCode::mul, d, d), {INFINITY, 0.0});
  expect_same(binary(OpCode::add, d, d), {2e300, -0.0});
}

TEST(InterpElementwise, IntegerArithmeticWraps) {
  auto a = lit<int32_t>({kMax32, kMin32, 7, -3});
  auto b = lit<int32_t>({1, 1, -2, kMax32});
  EXPECT_EQ(raw<int32_t>(binary(OpCode::add, a, b)),
            (std::vector<int32_t>{kMin32, kMin32 + 1, 5, kMax32 - 3}));
  EXPECT_EQ(raw<int32_t>(binary(OpCode::sub, a, b)),
            (std::vector<int32_t>{kMax32 - 1, kMax32, 9, kMax32 - 1}));
  EXPECT_EQ(raw<int32_t>(binary(OpCode::mul, a, b)),
            (std::vector<int32_t>{kMax32, kMin32, -14, kMin32 + 3}));  // -3 * MAX wraps
  auto x = lit<int64_t>({kMax64, kMin64});
  auto y = lit<int64_t>({2, -1});
  EXPECT_EQ(raw<int64_t>(binary(OpCode::mul, x, y)), (std::vector<int64_t>{-2, kMin64}));
  auto u = lit<uint8_t>({250, 3, 16});
  auto v = lit<uint8_t>({10, 5, 17});
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::add, u, v)), (std::vector<uint8_t>{4, 8, 33}));
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::sub, u, v)), (std::vector<uint8_t>{240, 254, 255}));
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::mul, u, v)), (std::vector<uint8_t>{196, 15, 16}));
}

TEST(InterpElementwise, DivFloat) {
  auto a = lit<float>({1, -1, 0, 7, kInf});
  auto b = lit<float>({0, 0, 0, -2, kInf});
  expect_same(binary(OpCode::div, a, b), {INFINITY, -INFINITY, NAN, -3.5, NAN});
}

TEST(InterpElementwise, DivIntegerTruncatesAndNeverTraps) {
  auto a = lit<int32_t>({7, -7, 7, -7, 5, kMin32, 0});
  auto b = lit<int32_t>({2, 2, -2, -2, 0, -1, 0});
  // x / 0 is defined as 0; INT_MIN / -1 wraps to INT_MIN.
  EXPECT_EQ(raw<int32_t>(binary(OpCode::div, a, b)),
            (std::vector<int32_t>{3, -3, -3, 3, 0, kMin32, 0}));
  auto x = lit<int64_t>({kMin64, -9, 9});
  auto y = lit<int64_t>({-1, 0, 4});
  EXPECT_EQ(raw<int64_t>(binary(OpCode::div, x, y)), (std::vector<int64_t>{kMin64, 0, 2}));
  auto u = lit<uint8_t>({200, 9, 255});
  auto v = lit<uint8_t>({3, 0, 255});
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::div, u, v)), (std::vector<uint8_t>{66, 0, 1}));
}

TEST(InterpElementwise, NegAbsSign) {
  auto f = lit<float>({-2, 0, -0.0f, 3, kNaN, -kInf});
  expect_same(unary(OpCode::neg, f), {2, -0.0, 0.0, -3, NAN, INFINITY});
  expect_same(unary(OpCode::abs, f), {2, 0, 0, 3, NAN, INFINITY});
  expect_same(unary(OpCode::sign, f), {-1, 0, -0.0, 1, NAN, -1});
  auto i = lit<int32_t>({-7, 0, 9, kMin32});
  EXPECT_EQ(raw<int32_t>(unary(OpCode::neg, i)), (std::vector<int32_t>{7, 0, -9, kMin32}));
  EXPECT_EQ(raw<int32_t>(unary(OpCode::abs, i)), (std::vector<int32_t>{7, 0, 9, kMin32}));
  EXPECT_EQ(raw<int32_t>(unary(OpCode::sign, i)), (std::vector<int32_t>{-1, 0, 1, -1}));
  auto l = lit<int64_t>({kMin64, -1});
  EXPECT_EQ(raw<int64_t>(unary(OpCode::abs, l)), (std::vector<int64_t>{kMin64, 1}));
  auto u = lit<uint8_t>({0, 5, 255});
  EXPECT_EQ(raw<uint8_t>(unary(OpCode::neg, u)), (std::vector<uint8_t>{0, 251, 1}));
  EXPECT_EQ(raw<uint8_t>(unary(OpCode::abs, u)), (std::vector<uint8_t>{0, 5, 255}));
  EXPECT_EQ(raw<uint8_t>(unary(OpCode::sign, u)), (std::vector<uint8_t>{0, 1, 1}));
  auto h = halfs<f16>({-0.0f, -3.5f, kNaN});
  expect_same(unary(OpCode::sign, h), {-0.0, -1, NAN});
  expect_same(unary(OpCode::neg, halfs<bf16>({1.5f, 0.0f})), {-1.5, -0.0});
}

// As PyTorch: 0 below zero, NaN and -0.0 kept, -inf gives +0; integers clamp at 0.
TEST(InterpElementwise, Relu) {
  const std::vector<double> want = {0, 0, -0.0, 3, NAN, 0, INFINITY, 0};
  expect_same(unary(OpCode::relu, lit<float>({-2, 0, -0.0f, 3, kNaN, -kInf, kInf, -1e-30f})), want);
  expect_same(unary(OpCode::relu, lit<double>({-2, 0, -0.0, 3, kNaN, -kInf, kInf, -1e-300})), want);
  expect_same(unary(OpCode::relu, halfs<f16>({-2, 0, -0.0f, 3, kNaN, -kInf, kInf, -1e-7f})), want);
  expect_same(unary(OpCode::relu, halfs<bf16>({-2, 0, -0.0f, 3, kNaN, -kInf, kInf, -1e-30f})),
              want);
  EXPECT_EQ(raw<int32_t>(unary(OpCode::relu, lit<int32_t>({-7, 0, 9, kMin32}))),
            (std::vector<int32_t>{0, 0, 9, 0}));
  EXPECT_EQ(raw<int64_t>(unary(OpCode::relu, lit<int64_t>({kMin64, -1, 5}))),
            (std::vector<int64_t>{0, 0, 5}));
  EXPECT_EQ(raw<uint8_t>(unary(OpCode::relu, lit<uint8_t>({0, 5, 255}))),
            (std::vector<uint8_t>{0, 5, 255}));
  EXPECT_EQ(unary(OpCode::relu, lit<float>({}, Shape{0})).numel(), 0);
  expect_same(unary(OpCode::relu, Literal::scalar<float>(-4.0f)), {0});
}

TEST(InterpElementwise, TranscendentalF64) {
  auto x = lit<double>({0, 1, -1, 0.5, 1e-10, -kInf, kInf, kNaN});
  // Within 2 ulp of the expected values (the compiler may fold std::exp(1.0) differently).
  auto close = [](const Literal& got, const std::vector<double>& want) {
    expect_same(got, want, 4e-16);
  };
  close(unary(OpCode::exp, x),
        {1, std::exp(1.0), std::exp(-1.0), std::exp(0.5), std::exp(1e-10), 0, INFINITY, NAN});
  close(unary(OpCode::expm1, x), {0, std::expm1(1.0), std::expm1(-1.0), std::expm1(0.5),
                                  std::expm1(1e-10), -1, INFINITY, NAN});
  EXPECT_NEAR(doubles(unary(OpCode::expm1, x))[4] / 1e-10, 1.0, 1e-9);  // no cancellation
  close(unary(OpCode::log, x),
        {-INFINITY, 0, NAN, std::log(0.5), std::log(1e-10), NAN, INFINITY, NAN});
  close(unary(OpCode::log1p, x),
        {0, std::log1p(1.0), -INFINITY, std::log1p(0.5), std::log1p(1e-10), NAN, INFINITY, NAN});
  close(unary(OpCode::tanh, x),
        {0, std::tanh(1.0), std::tanh(-1.0), std::tanh(0.5), std::tanh(1e-10), -1, 1, NAN});
  close(unary(OpCode::sqrt, x), {0, 1, NAN, std::sqrt(0.5), std::sqrt(1e-10), NAN, INFINITY, NAN});
  close(unary(OpCode::rsqrt, x),
        {INFINITY, 1, NAN, 1 / std::sqrt(0.5), 1 / std::sqrt(1e-10), NAN, 0, NAN});
  close(unary(OpCode::sin, x),
        {0, std::sin(1.0), std::sin(-1.0), std::sin(0.5), std::sin(1e-10), NAN, NAN, NAN});
  close(unary(OpCode::cos, x),
        {1, std::cos(1.0), std::cos(-1.0), std::cos(0.5), std::cos(1e-10), NAN, NAN, NAN});
  close(unary(OpCode::erf, x),
        {0, std::erf(1.0), std::erf(-1.0), std::erf(0.5), std::erf(1e-10), -1, 1, NAN});
}

TEST(InterpElementwise, FloorAndRoundAwayFromZero) {
  auto x = lit<float>({-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -2.5f, 2.4f, -0.0f, kInf, kNaN});
  expect_same(unary(OpCode::floor, x), {-2, -1, 0, 1, 2, -3, 2, -0.0, INFINITY, NAN});
  expect_same(unary(OpCode::round, x), {-2, -1, 1, 2, 3, -3, 2, -0.0, INFINITY, NAN});
  expect_same(unary(OpCode::round, halfs<bf16>({0.5f, -1.5f})), {1, -2});
}

TEST(InterpElementwise, LogisticIsStable) {
  auto x = lit<float>({0, 1000, -1000, 2, -2, kInf, -kInf, kNaN});
  auto y = floats(unary(OpCode::logistic, x));
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_FLOAT_EQ(y[3], 1.0f / (1.0f + std::exp(-2.0f)));
  EXPECT_FLOAT_EQ(y[4], 1.0f / (1.0f + std::exp(2.0f)));
  EXPECT_EQ(y[5], 1.0f);
  EXPECT_EQ(y[6], 0.0f);
  EXPECT_TRUE(std::isnan(y[7]));
  // Deep in the negative tail the result is tiny but not flushed to zero.
  auto d = doubles(unary(OpCode::logistic, lit<double>({-700})));
  EXPECT_GT(d[0], 0.0);
  EXPECT_NEAR(d[0] / std::exp(-700.0), 1.0, 1e-12);
}

TEST(InterpElementwise, HalfTypesComputeInFloatAndRound) {
  std::vector<float> xs = {0.1f, 1.0f, -2.3f, 10.0f};
  for (OpCode op : {OpCode::exp, OpCode::tanh, OpCode::sqrt, OpCode::log1p}) {
    auto h = unary(op, halfs<f16>(xs));
    auto b = unary(op, halfs<bf16>(xs));
    for (size_t i = 0; i < xs.size(); ++i) {
      auto ref = [&](float v) -> float {
        switch (op) {
          case OpCode::exp:
            return std::exp(v);
          case OpCode::tanh:
            return std::tanh(v);
          case OpCode::sqrt:
            return std::sqrt(v);
          default:
            return std::log1p(v);
        }
      };
      expect_same({floats(h)[i]}, {round_to<f16>(ref(round_to<f16>(xs[i])))});
      expect_same({floats(b)[i]}, {round_to<bf16>(ref(round_to<bf16>(xs[i])))});
    }
  }
  EXPECT_EQ(floats(unary(OpCode::exp, halfs<f16>({1.0f})))[0], 2.71875f);
  // f16 overflows at 65520: 60000 + 60000 = inf; 1 + 2^-11 rounds to even (1).
  auto a = halfs<f16>({60000, 1});
  auto b = halfs<f16>({60000, 1.0f / 2048});
  expect_same(binary(OpCode::add, a, b), {INFINITY, 1});
  expect_same(binary(OpCode::mul, halfs<bf16>({3}), halfs<bf16>({1.0f / 3})),
              {round_to<bf16>(3 * round_to<bf16>(1.0f / 3))});
}

TEST(InterpElementwise, Pow) {
  auto a = lit<float>({2, 4, -8, kNaN, 0, 1, -2});
  auto b = lit<float>({3, 0.5f, 1.0f / 3, 0, -1, kNaN, 2});
  expect_same(binary(OpCode::pow, a, b), {8, 2, NAN, 1, INFINITY, 1, 4});
  expect_same(binary(OpCode::pow, lit<double>({10}), lit<double>({-2})), {std::pow(10.0, -2)});
  expect_same(binary(OpCode::pow, halfs<f16>({3}), halfs<f16>({2})), {9});
}

// atan2(y, x) = the angle of (x, y): the quadrant from both signs, signed zeros included, NaN in.
TEST(InterpElementwise, Atan2) {
  const float pi = static_cast<float>(M_PI);
  auto y = lit<float>({1, 1, -1, 0, -0.0f, 0, -0.0f, 1, kNaN, kInf});
  auto x = lit<float>({1, -1, -1, -1, -1, 1, 1, 0, 1, kInf});
  expect_same(binary(OpCode::atan2, y, x),
              {pi / 4, 3 * pi / 4, -3 * pi / 4, pi, -pi, 0, -0.0f, pi / 2, NAN, pi / 4});
  expect_same(binary(OpCode::atan2, lit<double>({1}), lit<double>({std::sqrt(3.0)})),
              {std::atan2(1.0, std::sqrt(3.0))});
  expect_same(binary(OpCode::atan2, halfs<bf16>({1}), halfs<bf16>({-1})),
              {round_to<bf16>(3 * pi / 4)});
  auto none = lit<float>({});
  expect_same(binary(OpCode::atan2, none, none), {});
}

TEST(InterpElementwise, MaxMinPropagateNaN) {
  auto a = lit<float>({1, kNaN, 3, -0.0f, 0.0f, -kInf});
  auto b = lit<float>({2, 5, kNaN, 0.0f, -0.0f, 7});
  expect_same(binary(OpCode::max, a, b), {2, NAN, NAN, 0.0, 0.0, 7});
  expect_same(binary(OpCode::min, a, b), {1, NAN, NAN, -0.0, -0.0, -INFINITY});
  auto i = lit<int32_t>({kMin32, 5, -1});
  auto j = lit<int32_t>({kMax32, -5, -1});
  EXPECT_EQ(raw<int32_t>(binary(OpCode::max, i, j)), (std::vector<int32_t>{kMax32, 5, -1}));
  EXPECT_EQ(raw<int32_t>(binary(OpCode::min, i, j)), (std::vector<int32_t>{kMin32, -5, -1}));
  auto p = lit<bool>({false, false, true, true});
  auto q = lit<bool>({false, true, false, true});
  EXPECT_EQ(raw<bool>(binary(OpCode::max, p, q)), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(raw<bool>(binary(OpCode::min, p, q)), (std::vector<bool>{false, false, false, true}));
  auto u = lit<uint8_t>({0, 200});
  auto v = lit<uint8_t>({255, 100});
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::max, u, v)), (std::vector<uint8_t>{255, 200}));
  expect_same(binary(OpCode::max, halfs<bf16>({kNaN, 1}), halfs<bf16>({1, 2})), {NAN, 2});
}

TEST(InterpElementwise, CompareIsIEEE) {
  auto a = lit<float>({1, 2, kNaN, kNaN, -0.0f, kInf});
  auto b = lit<float>({2, 2, 1, kNaN, 0.0f, kInf});
  auto cmp = [&](CompareDir d, const Literal& x, const Literal& y) {
    return raw<bool>(run1(OpCode::compare, {x, y}, CompareAttrs{d}));
  };
  using V = std::vector<bool>;
  EXPECT_EQ(cmp(CompareDir::eq, a, b), (V{false, true, false, false, true, true}));
  EXPECT_EQ(cmp(CompareDir::ne, a, b), (V{true, false, true, true, false, false}));
  EXPECT_EQ(cmp(CompareDir::lt, a, b), (V{true, false, false, false, false, false}));
  EXPECT_EQ(cmp(CompareDir::le, a, b), (V{true, true, false, false, true, true}));
  EXPECT_EQ(cmp(CompareDir::gt, a, b), (V{false, false, false, false, false, false}));
  EXPECT_EQ(cmp(CompareDir::ge, a, b), (V{false, true, false, false, true, true}));
  auto i = lit<int32_t>({kMin32, 0, 3});
  auto j = lit<int32_t>({kMax32, 0, -3});
  EXPECT_EQ(cmp(CompareDir::lt, i, j), (V{true, false, false}));
  auto u = lit<uint8_t>({255, 0});
  auto v = lit<uint8_t>({0, 255});
  EXPECT_EQ(cmp(CompareDir::gt, u, v), (V{true, false}));  // unsigned, not signed
  auto p = lit<bool>({true, false});
  auto q = lit<bool>({false, false});
  EXPECT_EQ(cmp(CompareDir::gt, p, q), (V{true, false}));
  EXPECT_EQ(cmp(CompareDir::eq, halfs<f16>({1, kNaN}), halfs<f16>({1, kNaN})), (V{true, false}));
  auto s = run1(OpCode::compare, {Literal::scalar<double>(1), Literal::scalar<double>(1)},
                CompareAttrs{CompareDir::ge});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(raw<bool>(s), (V{true}));
}

TEST(InterpElementwise, Select) {
  auto pred = lit<bool>({true, false, false, true});
  auto t = lit<int32_t>({1, 2, 3, 4});
  auto f = lit<int32_t>({-1, -2, -3, -4});
  EXPECT_EQ(raw<int32_t>(run1(OpCode::select, {pred, t, f})), (std::vector<int32_t>{1, -2, -3, 4}));
  auto yes = run1(OpCode::select, {Literal::scalar<bool>(true), t, f});
  EXPECT_EQ(raw<int32_t>(yes), (std::vector<int32_t>{1, 2, 3, 4}));
  auto no = run1(OpCode::select, {Literal::scalar<bool>(false), halfs<f16>({1, kNaN}, Shape{2}),
                                  halfs<f16>({-0.0f, 5}, Shape{2})});
  expect_same(no, {-0.0, 5});
  auto bp = lit<bool>({true, false});
  auto bt = lit<bool>({false, false});
  auto bf = lit<bool>({true, true});
  EXPECT_EQ(raw<bool>(run1(OpCode::select, {bp, bt, bf})), (std::vector<bool>{false, true}));
  auto e = run1(OpCode::select, {lit<bool>({}, Shape{0, 2}), lit<float>({}, Shape{0, 2}),
                                 lit<float>({}, Shape{0, 2})});
  EXPECT_EQ(e.shape(), (Shape{0, 2}));
}

TEST(InterpElementwise, EmptyAndRankZero) {
  auto e = lit<float>({}, Shape{0, 3});
  EXPECT_EQ(binary(OpCode::add, e, e).shape(), (Shape{0, 3}));
  EXPECT_EQ(unary(OpCode::exp, lit<double>({}, Shape{2, 0})).shape(), (Shape{2, 0}));
  EXPECT_EQ(unary(OpCode::neg, lit<uint8_t>({}, Shape{0})).numel(), 0);
  auto s = binary(OpCode::mul, Literal::scalar<float>(3), Literal::scalar<float>(-2));
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(floats(s), (std::vector<float>{-6}));
  EXPECT_EQ(raw<int64_t>(unary(OpCode::neg, Literal::scalar<int64_t>(5))),
            (std::vector<int64_t>{-5}));
}

TEST(InterpElementwise, ConvertFloatToInt) {
  auto conv = [](const Literal& x, DType t) { return run1(OpCode::convert, {x}, ConvertAttrs{t}); };
  auto f = lit<float>({1.9f, -1.9f, kNaN, 1e10f, -1e10f, kInf, -kInf, -0.5f});
  // Truncates toward zero; NaN -> 0; out of range clamps to the integer range.
  EXPECT_EQ(raw<int32_t>(conv(f, DType::i32)),
            (std::vector<int32_t>{1, -1, 0, kMax32, kMin32, kMax32, kMin32, 0}));
  EXPECT_EQ(raw<int64_t>(conv(f, DType::i64)),
            (std::vector<int64_t>{1, -1, 0, 10000000000, -10000000000, kMax64, kMin64, 0}));
  auto g = lit<float>({-1, 300, 255.9f, kNaN, 0.99f});
  EXPECT_EQ(raw<uint8_t>(conv(g, DType::u8)), (std::vector<uint8_t>{0, 255, 255, 0, 0}));
  auto d = lit<double>({1e19, -1e19, 9223372036854775807.0, 2147483647.5, -2147483648.9});
  EXPECT_EQ(raw<int64_t>(conv(d, DType::i64)),
            (std::vector<int64_t>{kMax64, kMin64, kMax64, 2147483647, -2147483648}));
  EXPECT_EQ(raw<int32_t>(conv(d, DType::i32)),
            (std::vector<int32_t>{kMax32, kMin32, kMax32, kMax32, kMin32}));
  EXPECT_EQ(raw<int32_t>(conv(halfs<bf16>({-3.75f, kInf}), DType::i32)),
            (std::vector<int32_t>{-3, kMax32}));
}

TEST(InterpElementwise, ConvertIntAndBool) {
  auto conv = [](const Literal& x, DType t) { return run1(OpCode::convert, {x}, ConvertAttrs{t}); };
  // Integer narrowing wraps modulo 2^bits.
  EXPECT_EQ(raw<uint8_t>(conv(lit<int32_t>({256, 257, -1, 300}), DType::u8)),
            (std::vector<uint8_t>{0, 1, 255, 44}));
  EXPECT_EQ(raw<int32_t>(conv(lit<int64_t>({(int64_t{1} << 32) + 5, -1}), DType::i32)),
            (std::vector<int32_t>{5, -1}));
  EXPECT_EQ(raw<int64_t>(conv(lit<uint8_t>({255}), DType::i64)), (std::vector<int64_t>{255}));
  // x -> bool is x != 0 (NaN is true); bool -> x is 0 or 1.
  EXPECT_EQ(raw<bool>(conv(lit<float>({0, -0.0f, 0.5f, kNaN}), DType::boolean)),
            (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(raw<bool>(conv(lit<int32_t>({0, -3}), DType::boolean)),
            (std::vector<bool>{false, true}));
  expect_same(conv(lit<bool>({true, false}), DType::bf16), {1, 0});
  EXPECT_EQ(raw<int64_t>(conv(lit<bool>({true, false}), DType::i64)), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(raw<bool>(conv(lit<bool>({true, false}), DType::boolean)),
            (std::vector<bool>{true, false}));
}

TEST(InterpElementwise, ConvertFloatToFloatRoundsOnce) {
  auto conv = [](const Literal& x, DType t) { return run1(OpCode::convert, {x}, ConvertAttrs{t}); };
  // f64 -> f32: overflow to inf only past FLT_MAX's rounding range.
  auto d = lit<double>({1e300, -1e300, 1.0 / 3, 3.4028235e38, kNaN});
  expect_same(conv(d, DType::f32), {INFINITY, -INFINITY, static_cast<float>(1.0 / 3),
                                    static_cast<float>(3.4028235e38), NAN});
  // 1 + 2^-11 + 2^-40 is just above the midpoint of 1 and 1 + 2^-10 in f16: through f32 it
  // would round to the midpoint first and then to 1; correct rounding gives 1 + 2^-10.
  double above = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  expect_same(conv(lit<double>({above, -above}), DType::f16),
              {1 + std::ldexp(1.0, -10), -(1 + std::ldexp(1.0, -10))});
  double bf_above = 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  expect_same(conv(lit<double>({bf_above}), DType::bf16), {1 + std::ldexp(1.0, -7)});
  expect_same(conv(lit<double>({1e300, 70000, 1e-300}), DType::f16), {INFINITY, INFINITY, 0});
  expect_same(conv(lit<float>({65504, 65520, 1e-8f}), DType::f16), {65504, INFINITY, 0});
  expect_same(conv(halfs<f16>({65504, -0.0f, kNaN}), DType::bf16), {65536, -0.0, NAN});
  expect_same(conv(halfs<bf16>({1e30f}), DType::f16), {INFINITY});
  expect_same(conv(halfs<bf16>({0.1f}), DType::f64), {round_to<bf16>(0.1f)});
}

TEST(InterpElementwise, ConvertIntToHalfRoundsOnce) {
  auto conv = [](const Literal& x, DType t) { return run1(OpCode::convert, {x}, ConvertAttrs{t}); };
  expect_same(conv(lit<int32_t>({2049, 2051, -70000}), DType::f16), {2048, 2052, -INFINITY});
  // 2^24 + 2^16 + 1 is just above a bf16 midpoint; through f32 it would land on the midpoint.
  int64_t v = (int64_t{1} << 24) + (1 << 16) + 1;
  expect_same(conv(lit<int64_t>({v, -v}), DType::bf16),
              {16777216.0 + 131072.0, -(16777216.0 + 131072.0)});
  expect_same(conv(lit<int32_t>({static_cast<int32_t>(v)}), DType::bf16), {16777216.0 + 131072.0});
  expect_same(conv(lit<int64_t>({kMin64, kMax64}), DType::bf16), {-0x1p63, 0x1p63});
  expect_same(conv(lit<int64_t>({kMax64}), DType::f32), {0x1p63});
  expect_same(conv(lit<uint8_t>({255}), DType::f16), {255});
}

// ---- rem, ceil, is_finite, erf_inv, exp2, tan, clamp, the bitwise ops and shifts ----

TEST(InterpElementwise, RemIsFmod) {
  auto a = lit<float>({5.5f, -5.5f, 5.5f, -5.5f, 1, kInf, 3, -0.0f, kNaN, 0.0f});
  auto b = lit<float>({2, 2, -2, -2, 0, 2, kInf, 1, 1, -3});
  expect_same(binary(OpCode::rem, a, b), {1.5, -1.5, 1.5, -1.5, NAN, NAN, 3, -0.0, NAN, 0.0});
  expect_same(binary(OpCode::rem, halfs<f16>({7.5f, -7.5f}), halfs<f16>({2, 2})), {1.5, -1.5});
  expect_same(binary(OpCode::rem, halfs<bf16>({7.5f}), halfs<bf16>({-2})), {1.5});
  expect_same(binary(OpCode::rem, lit<double>({1e300}), lit<double>({3})), {std::fmod(1e300, 3.0)});
  // Integers: the sign of the dividend; x % 0 = x and MIN % -1 = 0, no trap.
  EXPECT_EQ(raw<int32_t>(binary(OpCode::rem, lit<int32_t>({7, -7, 7, -7, 5, kMin32}),
                                lit<int32_t>({3, 3, -3, -3, 0, -1}))),
            (std::vector<int32_t>{1, -1, 1, -1, 5, 0}));
  EXPECT_EQ(
      raw<int64_t>(binary(OpCode::rem, lit<int64_t>({kMin64, kMax64}), lit<int64_t>({-1, 10}))),
      (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::rem, lit<uint8_t>({250, 9}), lit<uint8_t>({7, 0}))),
            (std::vector<uint8_t>{5, 9}));
}

TEST(InterpElementwise, CeilAndIsFinite) {
  auto x = lit<float>({-1.5f, -0.5f, 0.5f, 1.5f, 2.0f, -0.0f, kInf, -kInf, kNaN});
  expect_same(unary(OpCode::ceil, x), {-1, -0.0, 1, 2, 2, -0.0, INFINITY, -INFINITY, NAN});
  expect_same(unary(OpCode::ceil, halfs<bf16>({0.25f, -1.75f})), {1, -1});
  EXPECT_EQ(raw<bool>(unary(OpCode::is_finite, x)),
            (std::vector<bool>{true, true, true, true, true, true, false, false, false}));
  EXPECT_EQ(raw<bool>(unary(OpCode::is_finite, halfs<f16>({65504.0f, 1e6f}))),
            (std::vector<bool>{true, false}));  // 1e6 overflows f16 to inf
  EXPECT_EQ(raw<bool>(unary(OpCode::is_finite, lit<double>({1e308, kNaN}))),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(unary(OpCode::is_finite, lit<float>({}, Shape{0, 2})).shape(), (Shape{0, 2}));
  EXPECT_EQ(unary(OpCode::is_finite, Literal::scalar<float>(1)).dtype(), DType::boolean);
}

TEST(InterpElementwise, ErfInvExp2Tan) {
  // erf_inv inverts erf: erf(erf_inv(y)) = y to within a few ulp, and erf_inv(erf(x)) = x.
  std::vector<double> ys = {0.5, -0.5, 1e-300, 0.9, -0.999, 0.1, std::erf(2.5), -1e-9};
  std::vector<double> back = doubles(unary(OpCode::erf_inv, lit<double>(ys)));
  for (size_t i = 0; i < ys.size(); ++i)
    EXPECT_NEAR(std::erf(back[i]), ys[i], 4e-16 * std::fabs(ys[i])) << ys[i];
  EXPECT_NEAR(doubles(unary(OpCode::erf_inv, lit<double>({std::erf(0.3)})))[0], 0.3, 1e-15);
  // Values near 1 through erfc: erf_inv(1 - erfc(x)) = x with the erfc of the exact 1 - y.
  for (double x : {3.0, 4.0, 5.0, 5.8}) {
    double y = 1 - std::erfc(x);
    double got = doubles(unary(OpCode::erf_inv, lit<double>({y})))[0];
    EXPECT_NEAR(std::erfc(got), 1 - y, 1e-14 * (1 - y)) << x;
  }
  expect_same(unary(OpCode::erf_inv, lit<double>({1, -1, 1.5, -2, kNaN, 0.0, -0.0})),
              {INFINITY, -INFINITY, NAN, NAN, NAN, 0.0, -0.0});
  expect_same(unary(OpCode::erf_inv, lit<float>({0.5f, -0.9f})),
              {static_cast<float>(0.47693627620446987), static_cast<float>(-1.1630871536766743)});
  expect_same(unary(OpCode::erf_inv, halfs<bf16>({0.5f})), {round_to<bf16>(0.4769362762f)});
  expect_same(unary(OpCode::erf_inv, halfs<f16>({-0.5f})), {round_to<f16>(-0.4769362762f)});

  auto x = lit<double>({0, 1, -1, 0.5, 1024, -1075, kInf, -kInf, kNaN});
  expect_same(unary(OpCode::exp2, x),
              {1, 2, 0.5, std::sqrt(2.0), INFINITY, 0.0, INFINITY, 0.0, NAN}, 4e-16);
  expect_same(unary(OpCode::exp2, halfs<f16>({16, -3})), {INFINITY, 0.125});  // 65536 overflows
  expect_same(unary(OpCode::tan, lit<double>({0, -0.0, 1, -1, kInf, kNaN})),
              {0, -0.0, std::tan(1.0), std::tan(-1.0), NAN, NAN}, 4e-16);
  expect_same(unary(OpCode::tan, halfs<bf16>({0.5f})), {round_to<bf16>(std::tan(0.5f))});
}

TEST(InterpElementwise, ClampIsMaxThenMin) {
  auto lo = lit<float>({0, 0, 0, 0, 2, kNaN, 0, -0.0f});
  auto x = lit<float>({-1, 0.5f, 3, kNaN, 1, 1, -0.0f, 0.0f});
  auto hi = lit<float>({1, 1, 1, 1, 1, 1, kNaN, -0.0f});
  // min > max gives max; NaN anywhere gives NaN; max(-0, 0) = 0, then min(0, -0) = -0.
  expect_same(run1(OpCode::clamp, {lo, x, hi}), {0, 0.5, 1, NAN, 1, NAN, NAN, -0.0});
  // Scalar bounds.
  auto s = run1(OpCode::clamp,
                {Literal::scalar<float>(-1), lit<float>({-3, 0, 3}), Literal::scalar<float>(2)});
  expect_same(s, {-1, 0, 2});
  EXPECT_EQ(raw<int32_t>(run1(OpCode::clamp,
                              {Literal::scalar<int32_t>(kMin32), lit<int32_t>({kMin32, 5, kMax32}),
                               lit<int32_t>({0, 3, kMax32})})),
            (std::vector<int32_t>{kMin32, 3, kMax32}));
  EXPECT_EQ(raw<uint8_t>(run1(OpCode::clamp, {Literal::scalar<uint8_t>(10), lit<uint8_t>({0, 200}),
                                              Literal::scalar<uint8_t>(100)})),
            (std::vector<uint8_t>{10, 100}));
  expect_same(run1(OpCode::clamp, {halfs<bf16>({0}), halfs<bf16>({2.5f}), halfs<bf16>({2})}), {2});
  EXPECT_EQ(run1(OpCode::clamp, {Literal::scalar<double>(0), lit<double>({}, Shape{0, 2}),
                                 Literal::scalar<double>(1)})
                .shape(),
            (Shape{0, 2}));
}

TEST(InterpElementwise, BitwiseOps) {
  auto a = lit<int32_t>({0x0F0F, -1, kMin32, 0});
  auto b = lit<int32_t>({0x00FF, 12345, -1, 0});
  EXPECT_EQ(raw<int32_t>(binary(OpCode::and_, a, b)),
            (std::vector<int32_t>{0x000F, 12345, kMin32, 0}));
  EXPECT_EQ(raw<int32_t>(binary(OpCode::or_, a, b)), (std::vector<int32_t>{0x0FFF, -1, -1, 0}));
  EXPECT_EQ(raw<int32_t>(binary(OpCode::xor_, a, b)),
            (std::vector<int32_t>{0x0FF0, ~12345, kMax32, 0}));
  EXPECT_EQ(raw<int32_t>(unary(OpCode::not_, a)), (std::vector<int32_t>{~0x0F0F, 0, kMax32, -1}));
  EXPECT_EQ(raw<int64_t>(unary(OpCode::not_, lit<int64_t>({kMax64}))),
            (std::vector<int64_t>{kMin64}));
  EXPECT_EQ(raw<uint8_t>(unary(OpCode::not_, lit<uint8_t>({0, 0xF0}))),
            (std::vector<uint8_t>{0xFF, 0x0F}));
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::xor_, lit<uint8_t>({0xFF}), lit<uint8_t>({0x0F}))),
            (std::vector<uint8_t>{0xF0}));
  auto p = lit<bool>({true, true, false, false});
  auto q = lit<bool>({true, false, true, false});
  EXPECT_EQ(raw<bool>(binary(OpCode::and_, p, q)), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(raw<bool>(binary(OpCode::or_, p, q)), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(raw<bool>(binary(OpCode::xor_, p, q)), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(raw<bool>(unary(OpCode::not_, p)), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(unary(OpCode::not_, lit<bool>({}, Shape{0})).numel(), 0);
}

TEST(InterpElementwise, ShiftsAsLaxIncludingOutOfRangeAmounts) {
  auto x = lit<int32_t>({1, -8, kMin32, -1, 5, -5, 3, -3});
  auto n = lit<int32_t>({31, 1, 1, 0, 32, 33, -1, 100});
  EXPECT_EQ(raw<int32_t>(binary(OpCode::shift_left, x, n)),
            (std::vector<int32_t>{kMin32, -16, 0, -1, 0, 0, 0, 0}));
  EXPECT_EQ(raw<int32_t>(binary(OpCode::shift_right_logical, x, n)),
            (std::vector<int32_t>{0, 0x7FFFFFFC, 0x40000000, -1, 0, 0, 0, 0}));
  EXPECT_EQ(raw<int32_t>(binary(OpCode::shift_right_arithmetic, x, n)),
            (std::vector<int32_t>{0, -4, kMin32 / 2, -1, 0, -1, 0, -1}));
  auto y = lit<int64_t>({1, -1, kMin64});
  auto m = lit<int64_t>({63, 64, 63});
  EXPECT_EQ(raw<int64_t>(binary(OpCode::shift_left, y, m)), (std::vector<int64_t>{kMin64, 0, 0}));
  EXPECT_EQ(raw<int64_t>(binary(OpCode::shift_right_logical, y, m)),
            (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(raw<int64_t>(binary(OpCode::shift_right_arithmetic, y, m)),
            (std::vector<int64_t>{0, -1, -1}));
  // u8: shifts on its 8 bits; the arithmetic shift copies the top bit (as XLA).
  auto u = lit<uint8_t>({0x81, 0x81, 0x81, 0x40});
  auto k = lit<uint8_t>({1, 7, 8, 200});
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::shift_left, u, k)), (std::vector<uint8_t>{2, 0x80, 0, 0}));
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::shift_right_logical, u, k)),
            (std::vector<uint8_t>{0x40, 1, 0, 0}));
  EXPECT_EQ(raw<uint8_t>(binary(OpCode::shift_right_arithmetic, u, k)),
            (std::vector<uint8_t>{0xC0, 0xFF, 0xFF, 0}));
}
