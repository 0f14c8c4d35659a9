// Reference-interpreter tests of reduce_*, argmax/argmin, the cumulative ops, rev and sort:
// hand-computed values, identities of empty reductions, NaN propagation, integer wrap-around,
// f16/bf16.
#include <cstdint>

#include "interp_test_util.h"

using namespace lazax;
using namespace lazax::interp_test;

namespace {
using VI = std::vector<int32_t>;
using VF = std::vector<float>;
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

Literal reduce(OpCode op, const Literal& x, IntList axes) {
  return run1(op, {x}, ReduceAttrs{std::move(axes)});
}
Literal argmax(const Literal& x, int64_t axis, DType index = DType::i32) {
  return run1(OpCode::argmax, {x}, ArgmaxAttrs{axis, index});
}
Literal cumsum(const Literal& x, int64_t axis, bool reverse = false) {
  return run1(OpCode::cumsum, {x}, CumsumAttrs{axis, reverse});
}
}  // namespace

TEST(InterpReduce, SumOverAxes) {
  auto x = lit<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto r1 = reduce(OpCode::reduce_sum, x, {1});
  EXPECT_EQ(r1.shape(), (Shape{2}));
  EXPECT_EQ(floats(r1), (VF{6, 15}));
  EXPECT_EQ(floats(reduce(OpCode::reduce_sum, x, {0})), (VF{5, 7, 9}));
  auto all = reduce(OpCode::reduce_sum, x, {0, 1});
  EXPECT_EQ(all.shape(), Shape{});
  EXPECT_EQ(floats(all), (VF{21}));
  EXPECT_EQ(floats(reduce(OpCode::reduce_sum, x, {})), (VF{1, 2, 3, 4, 5, 6}));
  // Middle axis of a rank-3 operand: [2, 2, 2] over axis 1.
  auto y = lit<int64_t>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 2, 2});
  EXPECT_EQ(raw<int64_t>(reduce(OpCode::reduce_sum, y, {1})), (std::vector<int64_t>{4, 6, 12, 14}));
  EXPECT_EQ(raw<int64_t>(reduce(OpCode::reduce_sum, y, {2, 0})), (std::vector<int64_t>{14, 22}));
  auto s = reduce(OpCode::reduce_sum, Literal::scalar<double>(2.5), {});
  EXPECT_EQ(doubles(s), (std::vector<double>{2.5}));
}

TEST(InterpReduce, SumEdgeCases) {
  expect_same(reduce(OpCode::reduce_sum, lit<float>({1, kInf, 2}), {0}), {INFINITY});
  expect_same(reduce(OpCode::reduce_sum, lit<float>({1, kInf, -kInf}), {0}), {NAN});
  expect_same(reduce(OpCode::reduce_sum, lit<float>({kNaN, 1}), {0}), {NAN});
  // Floating sums accumulate in double and round once: 1e8 + 1 - 1e8 is exactly 1.
  expect_same(reduce(OpCode::reduce_sum, lit<float>({1e8f, 1, -1e8f}), {0}), {1});
  // Empty axes sum to 0.
  auto e = reduce(OpCode::reduce_sum, lit<float>({}, Shape{2, 0}), {1});
  EXPECT_EQ(floats(e), (VF{0, 0}));
  EXPECT_EQ(reduce(OpCode::reduce_sum, lit<float>({}, Shape{0, 2}), {1}).shape(), (Shape{0}));
  // Integer sums wrap.
  EXPECT_EQ(raw<int32_t>(reduce(OpCode::reduce_sum, lit<int32_t>({kMax32, 1, 1}), {0})),
            (VI{kMin32 + 1}));
  EXPECT_EQ(raw<uint8_t>(reduce(OpCode::reduce_sum, lit<uint8_t>({200, 100, 1}), {0})),
            (std::vector<uint8_t>{45}));
  // f16 sums round once at the end: 2048 + 1 + 1 = 2050 (stepwise f16 would give 2048).
  expect_same(reduce(OpCode::reduce_sum, halfs<f16>({2048, 1, 1}), {0}), {2050});
  expect_same(reduce(OpCode::reduce_sum, halfs<f16>({60000, 60000, -60000}), {0}), {60000});
  expect_same(reduce(OpCode::reduce_sum, halfs<bf16>({1, 1.0f / 256}), {0}), {1});
}

TEST(InterpReduce, MaxMin) {
  auto x = lit<float>({3, -1, 7, 2, 8, -5}, Shape{2, 3});
  EXPECT_EQ(floats(reduce(OpCode::reduce_max, x, {1})), (VF{7, 8}));
  EXPECT_EQ(floats(reduce(OpCode::reduce_min, x, {1})), (VF{-1, -5}));
  EXPECT_EQ(floats(reduce(OpCode::reduce_max, x, {0})), (VF{3, 8, 7}));
  EXPECT_EQ(floats(reduce(OpCode::reduce_min, x, {0, 1})), (VF{-5}));
  // NaN propagates wherever it is.
  auto n = lit<float>({kNaN, 1, 2, 1, kNaN, 2, 1, 2, kNaN}, Shape{3, 3});
  expect_same(reduce(OpCode::reduce_max, n, {1}), {NAN, NAN, NAN});
  expect_same(reduce(OpCode::reduce_min, n, {1}), {NAN, NAN, NAN});
  expect_same(reduce(OpCode::reduce_max, lit<float>({-kInf, -kInf}), {0}), {-INFINITY});
  auto i = lit<int32_t>({kMin32, 4, kMax32, -9});
  EXPECT_EQ(raw<int32_t>(reduce(OpCode::reduce_max, i, {0})), (VI{kMax32}));
  EXPECT_EQ(raw<int32_t>(reduce(OpCode::reduce_min, i, {0})), (VI{kMin32}));
  auto u = lit<uint8_t>({3, 255, 0});
  EXPECT_EQ(raw<uint8_t>(reduce(OpCode::reduce_max, u, {0})), (std::vector<uint8_t>{255}));
  EXPECT_EQ(raw<uint8_t>(reduce(OpCode::reduce_min, u, {0})), (std::vector<uint8_t>{0}));
  // bool: max is any, min is all.
  auto b = lit<bool>({false, true, false, false}, Shape{2, 2});
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_max, b, {1})), (std::vector<bool>{true, false}));
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_min, b, {0})), (std::vector<bool>{false, false}));
  expect_same(reduce(OpCode::reduce_max, halfs<bf16>({1, 3, 2}), {0}), {3});
}

TEST(InterpReduce, EmptyMaxMinGiveTheIdentity) {
  expect_same(reduce(OpCode::reduce_max, lit<float>({}, Shape{2, 0}), {1}), {-INFINITY, -INFINITY});
  expect_same(reduce(OpCode::reduce_min, lit<double>({}, Shape{0}), {0}), {INFINITY});
  expect_same(reduce(OpCode::reduce_max, halfs<f16>({}, Shape{0}), {0}), {-INFINITY});
  EXPECT_EQ(raw<int32_t>(reduce(OpCode::reduce_max, lit<int32_t>({}, Shape{0}), {0})),
            (VI{kMin32}));
  EXPECT_EQ(raw<int32_t>(reduce(OpCode::reduce_min, lit<int32_t>({}, Shape{0}), {0})),
            (VI{kMax32}));
  EXPECT_EQ(raw<int64_t>(reduce(OpCode::reduce_min, lit<int64_t>({}, Shape{0}), {0})),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(raw<uint8_t>(reduce(OpCode::reduce_max, lit<uint8_t>({}, Shape{0}), {0})),
            (std::vector<uint8_t>{0}));
  EXPECT_EQ(raw<uint8_t>(reduce(OpCode::reduce_min, lit<uint8_t>({}, Shape{0}), {0})),
            (std::vector<uint8_t>{255}));
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_max, lit<bool>({}, Shape{0}), {0})),
            (std::vector<bool>{false}));
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_min, lit<bool>({}, Shape{0}), {0})),
            (std::vector<bool>{true}));
}

TEST(InterpReduce, Prod) {
  auto x = lit<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  EXPECT_EQ(floats(reduce(OpCode::reduce_prod, x, {0})), (VF{15, 48}));
  EXPECT_EQ(floats(reduce(OpCode::reduce_prod, x, {1})), (VF{2, 12, 30}));
  expect_same(reduce(OpCode::reduce_prod, lit<float>({0, kInf}), {0}), {NAN});
  expect_same(reduce(OpCode::reduce_prod, lit<float>({-1, 0}), {0}), {-0.0});
  EXPECT_EQ(floats(reduce(OpCode::reduce_prod, lit<float>({}, Shape{0, 3}), {0})), (VF{1, 1, 1}));
  EXPECT_EQ(raw<int32_t>(reduce(OpCode::reduce_prod, lit<int32_t>({65536, 65536, 3}), {0})),
            (VI{0}));  // 2^32 wraps to 0
  EXPECT_EQ(raw<int32_t>(reduce(OpCode::reduce_prod, lit<int32_t>({}, Shape{0}), {0})), (VI{1}));
  EXPECT_EQ(raw<uint8_t>(reduce(OpCode::reduce_prod, lit<uint8_t>({16, 17}), {0})),
            (std::vector<uint8_t>{16}));
  expect_same(reduce(OpCode::reduce_prod, halfs<f16>({256, 256, 1.0f / 256}), {0}), {256});
}

TEST(InterpReduce, ArgmaxFirstMaxWins) {
  auto x = lit<float>({1, 5, 5, 2, 9, 0, 9, 3}, Shape{2, 4});
  EXPECT_EQ(raw<int32_t>(argmax(x, 1)), (VI{1, 0}));
  auto c = argmax(x, 0, DType::i64);
  EXPECT_EQ(c.dtype(), DType::i64);
  EXPECT_EQ(raw<int64_t>(c), (std::vector<int64_t>{1, 0, 1, 1}));
  // NaN counts as the maximum; the first NaN wins.
  EXPECT_EQ(raw<int32_t>(argmax(lit<float>({1, kNaN, kInf, kNaN}), 0)), (VI{1}));
  EXPECT_EQ(raw<int32_t>(argmax(lit<double>({kInf, 1, kNaN}), 0)), (VI{2}));
  EXPECT_EQ(raw<int32_t>(argmax(lit<float>({-kInf, -kInf}), 0)), (VI{0}));
  EXPECT_EQ(raw<int32_t>(argmax(lit<float>({-0.0f, 0.0f}), 0)), (VI{0}));  // equal values
  EXPECT_EQ(raw<int32_t>(argmax(halfs<bf16>({1, 2, kNaN}), 0)), (VI{2}));
  EXPECT_EQ(raw<int32_t>(argmax(lit<int32_t>({kMin32, -1, -1}), 0)), (VI{1}));
  EXPECT_EQ(raw<int32_t>(argmax(lit<uint8_t>({7, 255, 0}), 0)), (VI{1}));
  EXPECT_EQ(raw<int32_t>(argmax(lit<bool>({false, true, true}), 0)), (VI{1}));
  EXPECT_EQ(raw<int32_t>(argmax(lit<float>({4}), 0)), (VI{0}));
  // A rank-3 operand over the middle axis; and an empty non-reduced dim.
  auto y = lit<int32_t>({0, 9, 5, 1, 3, 3, 4, 8}, Shape{2, 2, 2});
  EXPECT_EQ(raw<int32_t>(argmax(y, 1)), (VI{1, 0, 1, 1}));
  EXPECT_EQ(argmax(lit<float>({}, Shape{0, 3}), 1).shape(), (Shape{0}));
}

TEST(InterpReduce, Cumsum) {
  auto x = lit<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(floats(cumsum(x, 1)), (VF{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(floats(cumsum(x, 1, true)), (VF{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(floats(cumsum(x, 0)), (VF{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(floats(cumsum(x, 0, true)), (VF{5, 7, 9, 4, 5, 6}));
  expect_same(cumsum(lit<float>({1, kNaN, 2}), 0), {1, NAN, NAN});
  expect_same(cumsum(lit<float>({1, kNaN, 2}), 0, true), {NAN, NAN, 2});
  EXPECT_EQ(raw<int32_t>(cumsum(lit<int32_t>({kMax32, 1, -1}), 0)),
            (VI{kMax32, kMin32, kMax32}));  // wraps
  EXPECT_EQ(raw<uint8_t>(cumsum(lit<uint8_t>({200, 100}), 0)), (std::vector<uint8_t>{200, 44}));
  // f16: the running sum is kept exactly and each result rounds once.
  expect_same(cumsum(halfs<f16>({2048, 1, 1}), 0), {2048, 2048, 2050});
  auto i = cumsum(lit<int64_t>({1, 2, 3, 4}, Shape{2, 1, 2}), 2, true);
  EXPECT_EQ(raw<int64_t>(i), (std::vector<int64_t>{3, 2, 7, 4}));
  EXPECT_EQ(cumsum(lit<float>({}, Shape{3, 0}), 1).shape(), (Shape{3, 0}));
  EXPECT_EQ(cumsum(lit<float>({}, Shape{0, 3}), 1).shape(), (Shape{0, 3}));
}

namespace {
using VL = std::vector<int64_t>;
Literal cumulative(OpCode op, const Literal& x, int64_t axis, bool reverse = false) {
  return run1(op, {x}, CumsumAttrs{axis, reverse});
}
std::vector<Literal> two(OpCode op, const Literal& x, Attrs attrs) {
  return run_op(op, {x}, std::move(attrs));
}
}  // namespace

TEST(InterpReduce, ArgminFirstMinWins) {
  auto x = lit<float>({3, 1, 1, 2, 0, 0}, Shape{2, 3});
  EXPECT_EQ(raw<int32_t>(run1(OpCode::argmin, {x}, ArgmaxAttrs{1, DType::i32})), (VI{1, 1}));
  EXPECT_EQ(raw<int64_t>(run1(OpCode::argmin, {x}, ArgmaxAttrs{0, DType::i64})), (VL{1, 1, 1}));
  auto am = [](const Literal& l) {
    return raw<int32_t>(run1(OpCode::argmin, {l}, ArgmaxAttrs{0, DType::i32}));
  };
  EXPECT_EQ(am(lit<float>({1, kNaN, -kInf, kNaN})), (VI{1}));  // the first NaN is the minimum
  EXPECT_EQ(am(lit<float>({kInf, -kInf, -kInf})), (VI{1}));
  EXPECT_EQ(am(lit<float>({0.0f, -0.0f})), (VI{0}));  // equal values
  EXPECT_EQ(am(halfs<f16>({1, -2, kNaN})), (VI{2}));
  EXPECT_EQ(am(lit<int32_t>({kMax32, kMin32, kMin32})), (VI{1}));
  EXPECT_EQ(am(lit<uint8_t>({7, 0, 255})), (VI{1}));
  EXPECT_EQ(am(lit<bool>({true, false, false})), (VI{1}));
  EXPECT_EQ(am(lit<float>({4})), (VI{0}));
  EXPECT_EQ(run1(OpCode::argmin, {lit<float>({}, Shape{0, 3})}, ArgmaxAttrs{1, DType::i32}).shape(),
            (Shape{0}));
}

TEST(InterpReduce, Cumprod) {
  auto x = lit<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(floats(cumulative(OpCode::cumprod, x, 1)), (VF{1, 2, 6, 4, 20, 120}));
  EXPECT_EQ(floats(cumulative(OpCode::cumprod, x, 1, true)), (VF{6, 6, 3, 120, 30, 6}));
  EXPECT_EQ(floats(cumulative(OpCode::cumprod, x, 0)), (VF{1, 2, 3, 4, 10, 18}));
  expect_same(cumulative(OpCode::cumprod, lit<float>({2, kNaN, 0}), 0), {2, NAN, NAN});
  expect_same(cumulative(OpCode::cumprod, lit<float>({-1, 0, kInf}), 0), {-1, -0.0, NAN});
  EXPECT_EQ(raw<int32_t>(cumulative(OpCode::cumprod, lit<int32_t>({65536, 65536, 3}), 0)),
            (VI{65536, 0, 0}));  // 2^32 wraps to 0
  EXPECT_EQ(raw<uint8_t>(cumulative(OpCode::cumprod, lit<uint8_t>({16, 17}), 0)),
            (std::vector<uint8_t>{16, 16}));
  // f16 products accumulate in double and round each result once.
  expect_same(cumulative(OpCode::cumprod, halfs<bf16>({256, 256, 1.0f / 256}), 0),
              {256, 65536, 256});
  EXPECT_EQ(cumulative(OpCode::cumprod, lit<float>({}, Shape{3, 0}), 1).shape(), (Shape{3, 0}));
}

TEST(InterpReduce, CummaxCumminLastEqualAndNaNWin) {
  auto r = two(OpCode::cummax, lit<float>({1, 3, 2, 3, 5}), CumsumAttrs{0, false});
  EXPECT_EQ(floats(r[0]), (VF{1, 3, 3, 3, 5}));
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{0, 1, 1, 3, 4}));  // the later equal 3 takes over
  r = two(OpCode::cummin, lit<float>({1, 3, 2, 3, 5}), CumsumAttrs{0, true});
  EXPECT_EQ(floats(r[0]), (VF{1, 2, 2, 3, 5}));
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{0, 2, 2, 3, 4}));
  r = two(OpCode::cummax, lit<float>({1, kNaN, 5, kNaN, 7}), CumsumAttrs{0, false});
  expect_same(r[0], {1, NAN, NAN, NAN, NAN});
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{0, 1, 1, 3, 3}));  // NaN sticks, each NaN takes the index
  r = two(OpCode::cummin, lit<int32_t>({2, 1, 3, 4, 0, 5}, Shape{2, 3}), CumsumAttrs{0, false});
  EXPECT_EQ(raw<int32_t>(r[0]), (VI{2, 1, 3, 2, 0, 3}));
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{0, 0, 0, 0, 1, 0}));
  r = two(OpCode::cummax, lit<bool>({false, true, false}), CumsumAttrs{0, false});
  EXPECT_EQ(raw<bool>(r[0]), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{0, 1, 1}));
  r = two(OpCode::cummax, halfs<f16>({-kInf, -kInf}), CumsumAttrs{0, false});
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{0, 1}));
  EXPECT_EQ(two(OpCode::cummin, lit<uint8_t>({}, Shape{0, 2}), CumsumAttrs{0, false})[1].shape(),
            (Shape{0, 2}));
}

TEST(InterpReduce, ReduceAndOr) {
  auto x = lit<bool>({true, false, true, true, true, true}, Shape{2, 3});
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_and, x, {1})), (std::vector<bool>{false, true}));
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_or, x, {0})), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_and, x, {0, 1})), (std::vector<bool>{false}));
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_and, lit<bool>({}, Shape{0}), {0})),
            (std::vector<bool>{true}));
  EXPECT_EQ(raw<bool>(reduce(OpCode::reduce_or, lit<bool>({}, Shape{2, 0}), {1})),
            (std::vector<bool>{false, false}));
}

TEST(InterpReduce, Rev) {
  auto x = lit<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(raw<int32_t>(run1(OpCode::rev, {x}, RevAttrs{{1}})), (VI{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(raw<int32_t>(run1(OpCode::rev, {x}, RevAttrs{{0}})), (VI{4, 5, 6, 1, 2, 3}));
  EXPECT_EQ(raw<int32_t>(run1(OpCode::rev, {x}, RevAttrs{{0, 1}})), (VI{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(raw<int32_t>(run1(OpCode::rev, {x}, RevAttrs{{}})), (VI{1, 2, 3, 4, 5, 6}));
  expect_same(run1(OpCode::rev, {halfs<bf16>({-0.0f, kNaN, kInf})}, RevAttrs{{0}}),
              {INFINITY, NAN, -0.0});
  EXPECT_EQ(raw<bool>(run1(OpCode::rev, {lit<bool>({true, false})}, RevAttrs{{0}})),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(run1(OpCode::rev, {lit<float>({}, Shape{0, 2})}, RevAttrs{{1}}).shape(), (Shape{0, 2}));
}

TEST(InterpReduce, SortIsStableWithNaNLargest) {
  auto x = lit<float>({3, 1, 2, 1, kNaN, -kInf, 0.0f, -0.0f}, Shape{8});
  auto r = two(OpCode::sort, x, SortAttrs{0, false});
  expect_same(r[0], {-INFINITY, 0.0, -0.0, 1, 1, 2, 3, NAN});
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{5, 6, 7, 1, 3, 2, 0, 4}));
  r = two(OpCode::sort, x, SortAttrs{0, true});
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{4, 0, 2, 1, 3, 6, 7, 5}));  // equal values keep their order
  auto y = lit<int32_t>({5, kMin32, 5, 0, 2, 1}, Shape{3, 2});
  r = two(OpCode::sort, y, SortAttrs{0, false});
  EXPECT_EQ(raw<int32_t>(r[0]), (VI{2, kMin32, 5, 0, 5, 1}));
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{2, 0, 0, 1, 1, 2}));
  r = two(OpCode::sort, lit<bool>({true, false, true}), SortAttrs{0, true});
  EXPECT_EQ(raw<int64_t>(r[1]), (VL{0, 2, 1}));
  r = two(OpCode::sort, halfs<f16>({2, kNaN, -1}), SortAttrs{0, true});
  expect_same(r[0], {NAN, 2, -1});
  r = two(OpCode::sort, lit<uint8_t>({255, 0, 7}), SortAttrs{0, false});
  EXPECT_EQ(raw<uint8_t>(r[0]), (std::vector<uint8_t>{0, 7, 255}));
  EXPECT_EQ(two(OpCode::sort, lit<float>({}, Shape{2, 0}), SortAttrs{1, false})[1].shape(),
            (Shape{2, 0}));
}
