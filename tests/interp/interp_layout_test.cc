// Reference-interpreter tests of the layout ops: hand-computed results, clamped dynamic starts,
// negative and interior padding, empty and rank-0 shapes, several dtypes.
#include <cstdint>

#include "interp_test_util.h"

using namespace lazax;
using namespace lazax::interp_test;

namespace {
using VI = std::vector<int32_t>;
using VF = std::vector<float>;

Literal i32s(const VI& v, Shape s) { return lit<int32_t>(v, std::move(s)); }

// 0, 1, ..., n-1 as i32 of shape s.
Literal counting(Shape s) {
  VI v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i);
  return i32s(v, std::move(s));
}

Literal dyn_slice(const Literal& x, std::vector<Literal> starts, IntList sizes) {
  starts.insert(starts.begin(), x);
  return run1(OpCode::dynamic_slice, starts, DynamicSliceAttrs{std::move(sizes)});
}
Literal dyn_update(const Literal& x, const Literal& upd, std::vector<Literal> starts) {
  starts.insert(starts.begin(), {x, upd});
  return run1(OpCode::dynamic_update_slice, starts);
}
Literal pad(const Literal& x, const Literal& v, IntList lo, IntList hi, IntList interior) {
  return run1(OpCode::pad, {x, v}, PadAttrs{std::move(lo), std::move(hi), std::move(interior)});
}
Literal s32(int32_t v) { return Literal::scalar<int32_t>(v); }
Literal s64(int64_t v) { return Literal::scalar<int64_t>(v); }
}  // namespace

TEST(InterpLayout, BroadcastInDim) {
  auto row = i32s({1, 2, 3}, Shape{3});
  auto a = run1(OpCode::broadcast_in_dim, {row}, BroadcastInDimAttrs{Shape{2, 3}, {1}});
  EXPECT_EQ(raw<int32_t>(a), (VI{1, 2, 3, 1, 2, 3}));
  auto b = run1(OpCode::broadcast_in_dim, {row}, BroadcastInDimAttrs{Shape{3, 2}, {0}});
  EXPECT_EQ(raw<int32_t>(b), (VI{1, 1, 2, 2, 3, 3}));
  // Size-1 operand dims repeat.
  auto col = i32s({7, 8}, Shape{2, 1});
  auto c = run1(OpCode::broadcast_in_dim, {col}, BroadcastInDimAttrs{Shape{2, 3}, {0, 1}});
  EXPECT_EQ(raw<int32_t>(c), (VI{7, 7, 7, 8, 8, 8}));
  auto d = run1(OpCode::broadcast_in_dim, {counting(Shape{2, 3})},
                BroadcastInDimAttrs{Shape{2, 2, 3}, {0, 2}});  // result[i][j][k] = x[i][k]
  EXPECT_EQ(raw<int32_t>(d), (VI{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  auto s = run1(OpCode::broadcast_in_dim, {Literal::scalar<bool>(true)},
                BroadcastInDimAttrs{Shape{2, 2}, {}});
  EXPECT_EQ(raw<bool>(s), (std::vector<bool>{true, true, true, true}));
  auto h =
      run1(OpCode::broadcast_in_dim, {halfs<f16>({1.5f})}, BroadcastInDimAttrs{Shape{0, 1}, {1}});
  EXPECT_EQ(h.shape(), (Shape{0, 1}));
  auto r0 =
      run1(OpCode::broadcast_in_dim, {Literal::scalar<float>(2)}, BroadcastInDimAttrs{Shape{}, {}});
  EXPECT_EQ(floats(r0), (VF{2}));
}

TEST(InterpLayout, ReshapeSharesTheBuffer) {
  auto x = counting(Shape{2, 3});
  auto y = run1(OpCode::reshape, {x}, ReshapeAttrs{Shape{3, 1, 2}});
  EXPECT_EQ(y.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(raw<int32_t>(y), (VI{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(y.buffer.id(), x.buffer.id());
  auto s = run1(OpCode::reshape, {halfs<bf16>({4}, Shape{1, 1})}, ReshapeAttrs{Shape{}});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(floats(s), (VF{4}));
  auto e = run1(OpCode::reshape, {lit<uint8_t>({}, Shape{0, 4})}, ReshapeAttrs{Shape{2, 0}});
  EXPECT_EQ(e.shape(), (Shape{2, 0}));
}

TEST(InterpLayout, Transpose) {
  auto x = counting(Shape{2, 3});
  auto t = run1(OpCode::transpose, {x}, TransposeAttrs{{1, 0}});
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(raw<int32_t>(t), (VI{0, 3, 1, 4, 2, 5}));
  // result[a][b][c] = x[b][c][a] for permutation {2, 0, 1}.
  auto y = counting(Shape{2, 2, 3});
  auto u = run1(OpCode::transpose, {y}, TransposeAttrs{{2, 0, 1}});
  EXPECT_EQ(u.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(raw<int32_t>(u), (VI{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  auto d = run1(OpCode::transpose, {lit<double>({1, 2}, Shape{1, 2})}, TransposeAttrs{{1, 0}});
  EXPECT_EQ(doubles(d), (std::vector<double>{1, 2}));
  auto e = run1(OpCode::transpose, {lit<float>({}, Shape{0, 2})}, TransposeAttrs{{1, 0}});
  EXPECT_EQ(e.shape(), (Shape{2, 0}));
  auto s = run1(OpCode::transpose, {Literal::scalar<int64_t>(9)}, TransposeAttrs{{}});
  EXPECT_EQ(raw<int64_t>(s), (std::vector<int64_t>{9}));
}

TEST(InterpLayout, Slice) {
  auto x = counting(Shape{10});
  auto a = run1(OpCode::slice, {x}, SliceAttrs{{1}, {8}, {3}});
  EXPECT_EQ(raw<int32_t>(a), (VI{1, 4, 7}));
  auto b = run1(OpCode::slice, {x}, SliceAttrs{{2}, {5}, {}});
  EXPECT_EQ(raw<int32_t>(b), (VI{2, 3, 4}));
  auto y = counting(Shape{3, 4});
  auto c = run1(OpCode::slice, {y}, SliceAttrs{{1, 0}, {3, 4}, {1, 2}});
  EXPECT_EQ(c.shape(), (Shape{2, 2}));
  EXPECT_EQ(raw<int32_t>(c), (VI{4, 6, 8, 10}));
  auto e = run1(OpCode::slice, {y}, SliceAttrs{{3, 1}, {3, 2}, {}});
  EXPECT_EQ(e.shape(), (Shape{0, 1}));
  auto h = run1(OpCode::slice, {halfs<f16>({1, 2, 3, 4})}, SliceAttrs{{3}, {4}, {}});
  EXPECT_EQ(floats(h), (VF{4}));
  auto s = run1(OpCode::slice, {Literal::scalar<bool>(true)}, SliceAttrs{{}, {}, {}});
  EXPECT_EQ(raw<bool>(s), (std::vector<bool>{true}));
}

TEST(InterpLayout, DynamicSlice) {
  auto y = counting(Shape{3, 4});
  EXPECT_EQ(raw<int32_t>(dyn_slice(y, {s32(1), s32(1)}, {2, 2})), (VI{5, 6, 9, 10}));
  EXPECT_EQ(raw<int32_t>(dyn_slice(y, {s64(0), s64(2)}, {1, 2})), (VI{2, 3}));
  // Starts are clamped so that the window fits: negative -> 0, too large -> dim - size.
  EXPECT_EQ(raw<int32_t>(dyn_slice(y, {s32(-5), s32(3)}, {2, 2})), (VI{2, 3, 6, 7}));
  EXPECT_EQ(raw<int32_t>(dyn_slice(y, {s64(100), s64(-1)}, {1, 4})), (VI{8, 9, 10, 11}));
  EXPECT_EQ(
      raw<int32_t>(dyn_slice(
          y, {s32(std::numeric_limits<int32_t>::min()), s64(std::numeric_limits<int64_t>::max())},
          {1, 1})),
      (VI{3}));
  auto e = dyn_slice(y, {s32(7), s32(7)}, {0, 4});
  EXPECT_EQ(e.shape(), (Shape{0, 4}));
  auto s = dyn_slice(Literal::scalar<float>(3), {}, {});
  EXPECT_EQ(floats(s), (VF{3}));
  auto h = dyn_slice(halfs<bf16>({1, 2, 3}), {s32(2)}, {2});
  EXPECT_EQ(floats(h), (VF{2, 3}));
}

TEST(InterpLayout, DynamicUpdateSlice) {
  auto y = counting(Shape{3, 4});
  auto upd = i32s({-1, -2, -3, -4}, Shape{2, 2});
  EXPECT_EQ(raw<int32_t>(dyn_update(y, upd, {s32(1), s32(1)})),
            (VI{0, 1, 2, 3, 4, -1, -2, 7, 8, -3, -4, 11}));
  // Clamped starts: (5, -3) -> (1, 0).
  EXPECT_EQ(raw<int32_t>(dyn_update(y, upd, {s64(5), s64(-3)})),
            (VI{0, 1, 2, 3, -1, -2, 6, 7, -3, -4, 10, 11}));
  EXPECT_EQ(raw<int32_t>(y), (VI{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));  // input untouched
  auto same = dyn_update(y, i32s({}, Shape{0, 2}), {s32(2), s32(2)});
  EXPECT_EQ(raw<int32_t>(same), raw<int32_t>(y));
  auto whole = dyn_update(y, counting(Shape{3, 4}), {s32(1), s32(1)});
  EXPECT_EQ(raw<int32_t>(whole), raw<int32_t>(y));
  auto b = dyn_update(lit<bool>({false, false, false}), lit<bool>({true}), {s32(-1)});
  EXPECT_EQ(raw<bool>(b), (std::vector<bool>{true, false, false}));
  auto s = dyn_update(Literal::scalar<double>(1), Literal::scalar<double>(2), {});
  EXPECT_EQ(doubles(s), (std::vector<double>{2}));
}

TEST(InterpLayout, Concatenate) {
  auto a = counting(Shape{2, 2});
  auto b = i32s({9, 8}, Shape{1, 2});
  auto c0 = run1(OpCode::concatenate, {a, b}, ConcatenateAttrs{0});
  EXPECT_EQ(c0.shape(), (Shape{3, 2}));
  EXPECT_EQ(raw<int32_t>(c0), (VI{0, 1, 2, 3, 9, 8}));
  auto c = i32s({7, 6}, Shape{2, 1});
  auto e = i32s({}, Shape{2, 0});
  auto c1 = run1(OpCode::concatenate, {c, e, a, c}, ConcatenateAttrs{1});
  EXPECT_EQ(c1.shape(), (Shape{2, 4}));
  EXPECT_EQ(raw<int32_t>(c1), (VI{7, 0, 1, 7, 6, 2, 3, 6}));
  auto one = run1(OpCode::concatenate, {lit<bool>({true, false})}, ConcatenateAttrs{0});
  EXPECT_EQ(raw<bool>(one), (std::vector<bool>{true, false}));
  auto h = run1(OpCode::concatenate, {halfs<f16>({1}), halfs<f16>({2, 3})}, ConcatenateAttrs{0});
  EXPECT_EQ(floats(h), (VF{1, 2, 3}));
  auto empty = run1(OpCode::concatenate, {lit<float>({}, Shape{0, 3}), lit<float>({}, Shape{0, 3})},
                    ConcatenateAttrs{0});
  EXPECT_EQ(empty.shape(), (Shape{0, 3}));
}

TEST(InterpLayout, PadEdgesAndInterior) {
  auto x = i32s({1, 2, 3}, Shape{3});
  auto zero = s32(0);
  EXPECT_EQ(raw<int32_t>(pad(x, zero, {2}, {1}, {0})), (VI{0, 0, 1, 2, 3, 0}));
  EXPECT_EQ(raw<int32_t>(pad(x, s32(-1), {1}, {0}, {2})), (VI{-1, 1, -1, -1, 2, -1, -1, 3}));
  // Negative edges crop, also into the interior padding.
  EXPECT_EQ(raw<int32_t>(pad(x, zero, {-1}, {-1}, {0})), (VI{2}));
  EXPECT_EQ(raw<int32_t>(pad(x, zero, {-2}, {1}, {1})), (VI{2, 0, 3, 0}));
  EXPECT_EQ(raw<int32_t>(pad(x, zero, {-1}, {-2}, {0})), (VI{}));
  auto y = counting(Shape{2, 2});
  auto p = pad(y, s32(9), {1, -1}, {0, 1}, {1, 0});
  // rows: pad, x row 0, interior pad, x row 1; columns: drop the first, add one at the end.
  EXPECT_EQ(p.shape(), (Shape{4, 2}));
  EXPECT_EQ(raw<int32_t>(p), (VI{9, 9, 1, 9, 9, 9, 3, 9}));
}

TEST(InterpLayout, PadDtypesEmptyAndScalar) {
  auto h = pad(halfs<f16>({1.5f, 2}), halfs<f16>({-0.0f}, Shape{}), {1}, {1}, {1});
  expect_same(h, {-0.0, 1.5, -0.0, 2, -0.0});
  auto n = pad(lit<float>({1}), Literal::scalar<float>(kNaN), {0}, {1}, {0});
  expect_same(n, {1, NAN});
  auto b = pad(lit<bool>({true}), Literal::scalar<bool>(false), {1}, {0}, {0});
  EXPECT_EQ(raw<bool>(b), (std::vector<bool>{false, true}));
  // An empty operand is all padding (interior padding needs two elements to appear).
  auto e = pad(lit<uint8_t>({}, Shape{0}), Literal::scalar<uint8_t>(7), {2}, {1}, {3});
  EXPECT_EQ(raw<uint8_t>(e), (std::vector<uint8_t>{7, 7, 7}));
  auto s = pad(Literal::scalar<int64_t>(4), s64(0), {}, {}, {});
  EXPECT_EQ(raw<int64_t>(s), (std::vector<int64_t>{4}));
}
