// Numerical gradient checks of gather and scatter_add, including out-of-bounds windows.
#include <limits>

#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

TEST(IndexingGrads, EmbeddingGather) {
  Tensor ids = ints<int64_t>({2, 0, 2, 1}, {2, 2});  // a repeated row accumulates
  expect_grads(one([ids](const Tensors& a) { return sin(embedding(a[0], ids)); }),
               {rnd({3, 4}, 1)});
}
TEST(IndexingGrads, GatherWindowsWithTwoIndexDims) {
  // 2x2 windows of a [4,5] operand at (row, col) starts; clip mode clamps (3, 4) to (2, 3).
  Tensor starts = ints<int32_t>({0, 1, 3, 4, 1, 1}, {3, 2});
  for (GatherMode mode : {GatherMode::clip, GatherMode::fill}) {
    GatherAttrs a{{1, 2}, {}, {0, 1}, {2, 2}, mode};
    if (mode == GatherMode::fill) starts = ints<int32_t>({0, 1, 2, 3, 1, 1}, {3, 2});
    expect_grads(one([a, starts](const Tensors& v) {
                   return op(OpCode::gather, {v[0], starts}, a);
                 }),
                 {rnd({4, 5}, 2)});
  }
}
TEST(IndexingGrads, GatherOutOfBoundsGetsNoCotangent) {
  // fill mode: the out-of-bounds window reads NaN and receives no cotangent (no NaN leaks).
  Tensor rows = ints<int64_t>({1, 7}, {2, 1});
  GatherAttrs a{{1}, {0}, {0}, {1, 3}, GatherMode::fill};
  Tensor x = rnd({3, 3}, 3);
  Tensor g = grad([&](const Tensor& v) {
    Tensor picked = op(OpCode::gather, {v, rows}, a);
    Tensor ok = eq(picked, picked);  // false on NaN
    return where(ok, picked, 0.0).sum();
  })(x);
  EXPECT_EQ(values(g), (std::vector<double>{0, 0, 0, 1, 1, 1, 0, 0, 0}));
  // The tangent of the out-of-bounds window is 0 (JAX's fill_value=0 for tangents).
  auto [out, tan] = jvp(
      [&](const Tensor& v) {
        return op(OpCode::gather, {v, rows}, a);
      },
      std::make_tuple(x), std::make_tuple(ones({3, 3}, DType::f64)));
  EXPECT_EQ(values(tan), (std::vector<double>{1, 1, 1, 0, 0, 0}));
}
TEST(IndexingGrads, ScatterAdd) {
  // Rows 0 and 2 of a [3,4] operand, row 2 twice (updates accumulate).
  Tensor rows = ints<int32_t>({2, 0, 2}, {3, 1});
  ScatterAttrs a{{1}, {0}, {0}, GatherMode::fill};
  expect_grads(one([a, rows](const Tensors& v) {
                 return sin(op(OpCode::scatter_add, {v[0], rows, v[1] * v[1]}, a));
               }),
               {rnd({3, 4}, 4), rnd({3, 4}, 5)});
}
TEST(IndexingGrads, ScatterAddOutOfBoundsUpdatesGetZero) {
  // fill mode drops the update at row 5; its cotangent is 0, not NaN.
  Tensor rows = ints<int32_t>({1, 5}, {2, 1});
  ScatterAttrs a{{1}, {0}, {0}, GatherMode::fill};
  expect_grads(one([a, rows](const Tensors& v) {
                 return op(OpCode::scatter_add, {v[0], rows, v[1]}, a) * v[0];
               }),
               {rnd({3, 2}, 6), rnd({2, 2}, 7)});
  Tensor gu = grad([&](const Tensor& u) {
    return op(OpCode::scatter_add, {zeros({3, 2}, DType::f64), rows, u}, a).sum();
  })(rnd({2, 2}, 8));
  EXPECT_EQ(values(gu), (std::vector<double>{1, 1, 0, 0}));
}
TEST(IndexingGrads, ScatterAddWindowsClip) {
  // [2,2] windows into [4,4] at two starts (one clamped), clip mode.
  Tensor starts = ints<int64_t>({0, 0, 3, 2}, {2, 2});
  ScatterAttrs a{{1, 2}, {}, {0, 1}, GatherMode::clip};
  expect_grads(one([a, starts](const Tensors& v) {
                 return exp(op(OpCode::scatter_add, {v[0], starts, v[1]}, a) * 0.5);
               }),
               {rnd({4, 4}, 9), rnd({2, 2, 2}, 10)});
}
TEST(IndexingGrads, Float32Family) {
  Tensor ids = ints<int32_t>({1, 1, 0}, {3});
  expect_grads(one([ids](const Tensors& a) { return tanh(embedding(a[0], ids)).sum({0}); }),
               {rnd({2, 3}, 11, DType::f32)});
}
