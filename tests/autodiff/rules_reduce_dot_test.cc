// Numerical gradient checks of the reductions' and dot_general's rules.
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

TEST(ReduceGrads, Sum) {
  expect_grads(one([](const Tensors& a) {
                 return sin(op(OpCode::reduce_sum, {a[0]}, ReduceAttrs{{0, 2}}));
               }),
               {rnd({2, 3, 4}, 1)});
  expect_grads(one([](const Tensors& a) { return a[0].sum() * a[0].sum(); }), {rnd({2, 3}, 2)});
}
TEST(ReduceGrads, MaxMin) {
  expect_grads(one([](const Tensors& a) { return amax(a[0], {1}) * amin(a[0], {0}).sum(); }),
               {rnd({3, 4}, 3)});
}
TEST(ReduceGrads, MaxTiesShareTheCotangent) {
  Tensor x = from_vector<double>({1, 3, 3, 2, 5, 5, 5, 0}, {2, 4});
  Tensor g = grad([](const Tensor& v) { return amax(v, {1}).sum(); })(x);
  EXPECT_EQ(values(g), (std::vector<double>{0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0}));
  Tensor gm = grad([](const Tensor& v) { return amin(v, {0}).sum(); })(x);
  EXPECT_EQ(values(gm), (std::vector<double>{1, 1, 1, 0, 0, 0, 0, 1}));
}
TEST(ReduceGrads, Prod) {
  expect_grads(one([](const Tensors& a) { return prod(a[0], {1}); }),
               {uniform({3, 4}, 4, 0.5, 1.5)});
}
TEST(ReduceGrads, ProdWithZeros) {
  // No zero: prod / x; one zero: only the zero's slot (the product of the others); two: none.
  Tensor x = from_vector<double>({2, 0, 3, 0, 0, 3, 1, 2, 4}, {3, 3});
  Tensor g = grad([](const Tensor& v) { return prod(v, {1}).sum(); })(x);
  EXPECT_EQ(values(g), (std::vector<double>{0, 6, 0, 0, 0, 0, 8, 4, 2}));
  Tensor t = from_vector<double>({1, 1, 1, 1, 1, 1, 1, 1, 1}, {3, 3});
  auto [out, tan] =
      jvp([](const Tensor& v) { return prod(v, {1}); }, std::make_tuple(x), std::make_tuple(t));
  EXPECT_EQ(values(tan), (std::vector<double>{6, 0, 14}));
}
TEST(ReduceGrads, Cumsum) {
  expect_grads(one([](const Tensors& a) { return sin(cumsum(a[0], 1)); }), {rnd({2, 4}, 5)});
  expect_grads(one([](const Tensors& a) {
                 return exp(op(OpCode::cumsum, {a[0]}, CumsumAttrs{0, true}));
               }),
               {rnd({3, 2}, 6)});
}
TEST(ReduceGrads, Float32Family) {
  expect_grads(one([](const Tensors& a) {
                 return cumsum(a[0], 0) * amax(a[0], {0}, true) + a[0].sum({1}, true);
               }),
               {rnd({3, 4}, 7, DType::f32)});
}

namespace {
void dot(const Tensor& x, const Tensor& y, DotGeneralAttrs a) {
  expect_grads(one([a](const Tensors& v) {
                 return op(OpCode::dot_general, {v[0], v[1]}, a);
               }),
               {x, y});
}
}  // namespace

TEST(DotGrads, Matmul) { dot(rnd({3, 4}, 10), rnd({4, 5}, 11), {{}, {}, {1}, {0}}); }
TEST(DotGrads, Batched) { dot(rnd({2, 3, 4}, 12), rnd({2, 4, 5}, 13), {{0}, {0}, {2}, {1}}); }
TEST(DotGrads, ContractingLeadingDims) {
  dot(rnd({4, 3}, 14), rnd({5, 4}, 15), {{}, {}, {0}, {1}});
}
TEST(DotGrads, BatchDimsInTheMiddle) {
  dot(rnd({3, 2, 4}, 16), rnd({4, 2, 5}, 17), {{1}, {1}, {2}, {0}});
}
TEST(DotGrads, SeveralContractingDimsInSwappedOrder) {
  dot(rnd({2, 3, 4}, 18), rnd({4, 3, 5}, 19), {{}, {}, {1, 2}, {1, 0}});
}
TEST(DotGrads, OuterProductAndVectorDot) {
  dot(rnd({3}, 20), rnd({4}, 21), {{}, {}, {}, {}});
  dot(rnd({3}, 22), rnd({3}, 23), {{}, {}, {0}, {0}});
}
TEST(DotGrads, MatmulApiFloat32) {
  expect_grads(one([](const Tensors& v) { return tanh(matmul(v[0], v[1])); }),
               {rnd({2, 3, 4}, 24, DType::f32), rnd({4, 2}, 25, DType::f32)});
}
