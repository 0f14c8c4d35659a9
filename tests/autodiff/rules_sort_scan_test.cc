// Numerical gradient checks of rev, sort (and topk on it), cumprod, cummax and cummin, and the
// gradients of cumprod and cummax at zeros and ties (as torch).
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

TEST(SortScanGrads, Rev) {
  expect_grads(one([](const Tensors& a) {
                 return sin(flip(a[0], {0, -1})) * a[0];
               }),
               {rnd({2, 3, 4}, 11)});
  expect_grads(one([](const Tensors& a) { return exp(a[0].flip({1})); }), {rnd({3, 2}, 12)});
}

TEST(SortScanGrads, SortTopk) {
  // Random values are distinct: away from the ties where sort is not differentiable.
  expect_grads(one([](const Tensors& a) { return std::get<0>(sort(a[0], 1)) * a[0]; }),
               {rnd({3, 5}, 13)});
  expect_grads(one([](const Tensors& a) { return sin(std::get<0>(sort(a[0], 0, true))); }),
               {rnd({4, 3}, 14)});
  expect_grads(one([](const Tensors& a) { return std::get<0>(topk(a[0], 2, -1)) * 3.0; }),
               {rnd({3, 5}, 15)});
  expect_grads(one([](const Tensors& a) { return exp(std::get<0>(topk(a[0], 3, 0, false))); }),
               {rnd({4, 2}, 16)});
}

TEST(SortScanGrads, SortSendsTheCotangentBack) {
  Tensor x = from_vector<double>({3, 1, 2}, {3});
  Tensor w = from_vector<double>({10, 20, 30}, {3});
  Tensor g = grad([&](const Tensor& v) { return (std::get<0>(sort(v, 0)) * w).sum(); })(x);
  EXPECT_EQ(values(g), (std::vector<double>{30, 10, 20}));
}

TEST(SortScanGrads, CummaxCummin) {
  expect_grads(one([](const Tensors& a) { return std::get<0>(cummax(a[0], 1)) * a[0]; }),
               {rnd({3, 5}, 17)});
  expect_grads(one([](const Tensors& a) { return sin(std::get<0>(cummin(a[0], 0))); }),
               {rnd({4, 3}, 18)});
  expect_grads(one([](const Tensors& a) {
                 return exp(op(OpCode::cummax, {a[0]}, CumsumAttrs{1, true}));
               }),
               {rnd({2, 4}, 19)});
}

TEST(SortScanGrads, CummaxRoutesToTheRunningMaxIndex) {
  // Ties go to the later index (torch's cummax index), as does the whole gradient there.
  Tensor x = from_vector<double>({1, 3, 2, 3, 0}, {5});
  Tensor g = grad([](const Tensor& v) { return std::get<0>(cummax(v, 0)).sum(); })(x);
  EXPECT_EQ(values(g), (std::vector<double>{1, 2, 0, 2, 0}));
}

TEST(SortScanGrads, Cumprod) {
  expect_grads(one([](const Tensors& a) { return sin(cumprod(a[0], 1)); }),
               {uniform({3, 4}, 20, 0.5, 1.5)});
  expect_grads(one([](const Tensors& a) {
                 return op(OpCode::cumprod, {a[0]}, CumsumAttrs{0, true}) * a[0];
               }),
               {uniform({4, 2}, 21, -1.5, 1.5)});
}

TEST(SortScanGrads, CumprodWithZeros) {
  // Rows: one zero, a zero first, two zeros, none. cumprod is multilinear, so finite differences
  // are exact at the zeros too (first order: the rule's second derivative there is not).
  Tensor x = from_vector<double>({2, 0, 3, 4, 0, 5, 2, 1, 3, 0, 2, 0, 1, 2, 3, 4}, {4, 4});
  Tensor g = grad([](const Tensor& v) { return cumprod(v, 1).sum(); })(x);
  EXPECT_EQ(values(g), (std::vector<double>{1, 32, 0, 0, 26, 0, 0, 0, 1, 9, 0, 0, 33, 16, 10, 6}));
  expect_grads(one([](const Tensors& a) { return cumprod(a[0], 1) * a[0]; }), {x}, 1);
  expect_grads(one([](const Tensors& a) {
                 return op(OpCode::cumprod, {a[0]}, CumsumAttrs{1, true});
               }),
               {x}, 1);
  expect_grads(one([](const Tensors& a) { return cumprod(a[0], 0); }), {x}, 1);
}
