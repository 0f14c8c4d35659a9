// check_grads (orders 1 and 2, forward and reverse) on the indexing ops and everyday composites
// of tensor.h: index_select, gather, scatter_add, index_put, Tensor::index, Tensor::index_put_,
// var, std, tril, triu, layer_norm, dropout. Their rules come from the primitives they are
// written with (gather, scatter_add, pad, select, reductions).
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;
using namespace lazax::indexing;

TEST(IndexGrads, IndexSelect) {
  Tensor i = ints<int64_t>({2, 0, 2}, {3});
  expect_grads(one([i](const Tensors& a) { return index_select(a[0], -1, i); }), {rnd({2, 3}, 1)});
}
TEST(IndexGrads, Gather) {
  Tensor i = ints<int64_t>({1, 0, 1, 1}, {2, 2});
  expect_grads(one([i](const Tensors& a) { return gather(a[0], 0, i) * a[0].narrow(1, 0, 2); }),
               {rnd({2, 3}, 2)});
}
TEST(IndexGrads, ScatterAdd) {
  Tensor i = ints<int64_t>({0, 0, 2, 1}, {2, 2});
  expect_grads(one([i](const Tensors& a) { return scatter_add(a[0], 1, i, a[1]) * a[0]; }),
               {rnd({2, 3}, 3), rnd({2, 2}, 4)});
}
TEST(IndexGrads, IndexPut) {
  Tensor i = ints<int64_t>({1, -1}, {2});
  for (bool acc : {false, true})
    expect_grads(one([i, acc](const Tensors& a) { return index_put(a[0], {i}, a[1], acc) * a[0]; }),
                 {rnd({3, 2}, 5), rnd({2, 2}, 6)});
}
TEST(IndexGrads, TensorIndex) {
  Tensor i = ints<int64_t>({1, -1}, {2});
  expect_grads(one([i](const Tensors& a) {
                 return a[0].index({Slice(None, None, 2), None, i}) *
                        a[0].index({Slice(0, 2), Slice(None, None, 2)}) *
                        a[0].index({0, Ellipsis}).index({Slice(None, 2)});
               }),
               {rnd({3, 4}, 7)});
}
TEST(IndexGrads, TensorIndexPut) {
  expect_grads(one([](const Tensors& a) {
                 Tensor y = a[0] * a[0];
                 y.index_put_({Slice(1, None), Slice(None, None, 2)}, a[1]);
                 return y;
               }),
               {rnd({3, 4}, 8), rnd({2}, 9)});
}
TEST(IndexGrads, VarStd) {
  expect_grads(one([](const Tensors& a) { return var(a[0], {-1}); }), {rnd({2, 4}, 10)});
  expect_grads(one([](const Tensors& a) { return lazax::std(a[0], {}, 0, true); }),
               {rnd({2, 3}, 11)});
}
TEST(IndexGrads, TrilTriu) {
  expect_grads(one([](const Tensors& a) { return tril(a[0], -1) * triu(a[0]); }),
               {rnd({2, 3, 3}, 12)});
}
TEST(IndexGrads, LayerNorm) {
  expect_grads(one([](const Tensors& a) {
                 return layer_norm(a[0], {2, 3}, a[1], a[2]);
               }),
               {rnd({2, 2, 3}, 13), rnd({2, 3}, 14), rnd({2, 3}, 15)});
}
TEST(IndexGrads, Dropout) {
  // The mask is drawn once per call: the same seed before each call gives the same function.
  expect_grads(one([](const Tensors& a) {
                 manual_seed(5);
                 return dropout(a[0], 0.5);
               }),
               {rnd({3, 4}, 16)});
}
