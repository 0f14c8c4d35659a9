// Numerical gradient checks of the data-movement primitives' rules: broadcast_in_dim, reshape,
// transpose, slice, dynamic_slice, dynamic_update_slice, concatenate, pad, and the identity-like
// checkpoint_name, optimization_barrier, copy_to_memory_kind.
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {
Tensor idx(int64_t v) { return scalar_tensor(static_cast<double>(v), DType::i32); }
}  // namespace

TEST(LayoutGrads, BroadcastInDim) {
  // New dims and a stretched size-1 dim: [3,1] -> [2,3,4] along dims {1,2}.
  expect_grads(one([](const Tensors& a) {
                 return op(OpCode::broadcast_in_dim, {a[0]},
                           BroadcastInDimAttrs{Shape{2, 3, 4}, {1, 2}}) *
                        a[1];
               }),
               {rnd({3, 1}, 1), rnd({2, 3, 4}, 2)});
  // A kept size-1 dim: [1,3] -> [1,3,2] along {0,1}.
  expect_grads(one([](const Tensors& a) {
                 return sin(op(OpCode::broadcast_in_dim, {a[0]},
                               BroadcastInDimAttrs{Shape{1, 3, 2}, {0, 1}}));
               }),
               {rnd({1, 3}, 3)});
}
TEST(LayoutGrads, Reshape) {
  expect_grads(one([](const Tensors& a) {
                 return sin(a[0].reshape({3, 2, 1}));
               }),
               {rnd({2, 3}, 4)});
}
TEST(LayoutGrads, Transpose) {
  expect_grads(one([](const Tensors& a) {
                 return a[0].permute({2, 0, 1}) * a[1];
               }),
               {rnd({2, 3, 4}, 5), rnd({4, 2, 3}, 6)});
}
TEST(LayoutGrads, SliceWithStrides) {
  expect_grads(one([](const Tensors& a) {
                 return exp(op(OpCode::slice, {a[0]}, SliceAttrs{{1, 0}, {6, 4}, {2, 3}}));
               }),
               {rnd({7, 5}, 7)});
  // An empty slice and a full one.
  expect_grads(one([](const Tensors& a) { return a[0].slice(1, 2, 2); }), {rnd({3, 4}, 8)}, 1);
  expect_grads(one([](const Tensors& a) { return a[0].slice(0, 1, 3) * a[0].slice(0, 0, 2); }),
               {rnd({3, 4}, 9)});
}
TEST(LayoutGrads, DynamicSlice) {
  expect_grads(
      one([](const Tensors& a) {
        return cos(op(OpCode::dynamic_slice, {a[0], idx(1), idx(2)}, DynamicSliceAttrs{{2, 2}}));
      }),
      {rnd({4, 5}, 10)});
  // A start past the end is clamped (lax): the cotangent goes where the values came from.
  expect_grads(
      one([](const Tensors& a) {
        return op(OpCode::dynamic_slice, {a[0], idx(3), idx(-1)}, DynamicSliceAttrs{{2, 3}}) * 2.0;
      }),
      {rnd({4, 5}, 11)});
}
TEST(LayoutGrads, DynamicUpdateSlice) {
  expect_grads(one([](const Tensors& a) {
                 return tanh(op(OpCode::dynamic_update_slice, {a[0], a[1] * a[1], idx(2), idx(1)}));
               }),
               {rnd({4, 5}, 12), rnd({2, 3}, 13)});
}
TEST(LayoutGrads, Concatenate) {
  expect_grads(one([](const Tensors& a) {
                 return sin(cat({a[0], a[1] * 2.0, a[2]}, 1));
               }),
               {rnd({2, 1}, 14), rnd({2, 3}, 15), rnd({2, 2}, 16)});
}
TEST(LayoutGrads, PadWithNegativeEdgesAndInterior) {
  // Operand and padding value are both differentiated; negative low crops, interior spreads.
  auto pad_fn = [](const Tensors& a) {
    return op(OpCode::pad, {a[0], a[1]}, PadAttrs{{-1, 2}, {2, -1}, {1, 0}}) * a[2];
  };
  // [4,3]: dim 0 -> 4 + 3 - 1 + 2 = 8, dim 1 -> 3 + 2 - 1 = 4.
  expect_grads(one(pad_fn), {rnd({4, 3}, 17), rnd({}, 18), rnd({8, 4}, 19)});
}
TEST(LayoutGrads, IdentityLikeOps) {
  expect_grads(one([](const Tensors& a) {
                 return exp(op(OpCode::checkpoint_name, {a[0]}, CheckpointNameAttrs{"h"}));
               }),
               {rnd({3}, 20)});
  expect_grads(
      [](const Tensors& a) {
        Tensors outs = record_op(OpCode::optimization_barrier, {a[0], a[1]}, NoAttrs{});
        return Tensors{outs[0] * outs[1], sin(outs[1])};
      },
      {rnd({3}, 21), rnd({3}, 22)});
  expect_grads(
      one([](const Tensors& a) {
        Tensor h = op(OpCode::copy_to_memory_kind, {a[0]}, MemoryKindAttrs{MemoryKind::host});
        return op(OpCode::copy_to_memory_kind, {h}, MemoryKindAttrs{MemoryKind::device}) * a[0];
      }),
      {rnd({3}, 23)});
}
TEST(LayoutGrads, Float32Family) {
  expect_grads(one([](const Tensors& a) {
                 Tensor t = cat({a[0].t(), a[1]}, 0).slice(0, 1, 5, 2);
                 return sin(t.reshape({-1})).expand({2, 6});
               }),
               {rnd({3, 2}, 24, DType::f32), rnd({2, 3}, 25, DType::f32)}, 2);
}
