// Numerical gradient checks (check_grads, orders 1 and 2, forward and reverse) of the VJP and
// JVP rules of every differentiable elementwise primitive.
#include "lazax/api/tensor_impl.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {
const std::vector<int64_t> kShape = {2, 3};

void unary(Tensor (*fn)(const Tensor&), const Tensor& x) {
  expect_grads(one([fn](const Tensors& a) { return fn(a[0]); }), {x});
}
}  // namespace

TEST(ElementwiseGrads, Add) {
  expect_grads(one([](const Tensors& a) { return a[0] + a[1]; }), {rnd(kShape, 1), rnd(kShape, 2)});
}
TEST(ElementwiseGrads, Sub) {
  expect_grads(one([](const Tensors& a) { return a[0] - a[1]; }), {rnd(kShape, 1), rnd(kShape, 2)});
}
TEST(ElementwiseGrads, Mul) {
  expect_grads(one([](const Tensors& a) { return a[0] * a[1]; }), {rnd(kShape, 1), rnd(kShape, 2)});
}
TEST(ElementwiseGrads, Div) {
  expect_grads(one([](const Tensors& a) { return a[0] / a[1]; }),
               {rnd(kShape, 1), rnd(kShape, 2, DType::f64, 0.5)});
}
TEST(ElementwiseGrads, Neg) { unary(&neg, rnd(kShape, 3)); }
TEST(ElementwiseGrads, Abs) { unary(&abs, rnd(kShape, 4, DType::f64, 0.1)); }
TEST(ElementwiseGrads, Relu) { unary(&relu, rnd(kShape, 23, DType::f64, 0.1)); }
// At the kink and the specials, as PyTorch's threshold_backward: 0 where x <= 0 (+-0 included),
// 1 elsewhere (NaN included), in both modes; a NaN cotangent where x <= 0 gives 0, not NaN.
TEST(ElementwiseGrads, ReluAtZerosNaNAndInfinities) {
  for (DType dt : {DType::f64, DType::f32}) {
    Tensor x = from_vector<double>({0.0, -0.0, NAN, INFINITY, -INFINITY, -1, 2}, {7}).to(dt);
    const std::vector<double> want = {0, 0, 1, 1, 0, 0, 1};
    EXPECT_EQ(values(grad([](const Tensor& v) { return relu(v).sum(); })(x)), want);
    auto [y, t] = jvp([](const Tensor& v) { return relu(v); }, std::make_tuple(x),
                      std::make_tuple(ones_like(x)));
    EXPECT_EQ(values(t), want);
    auto [out, pull] = vjp([](const Tensor& v) { return relu(v); }, x);
    Tensor nan_ct = full({7}, NAN, dt);
    std::vector<double> g = values(std::get<0>(pull(nan_ct)));
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_EQ(std::isnan(g[i]), want[i] != 0) << "element " << i;
  }
}
TEST(ElementwiseGrads, SignHasZeroDerivative) {
  unary(&sign, rnd(kShape, 5, DType::f64, 0.1));
  auto g = grad([](const Tensor& x) { return (sign(x) * x).sum(); })(rnd(kShape, 5));
  // d/dx (sign(x) x) = sign(x): the sign factor itself contributes nothing.
  EXPECT_EQ(values(g), values(sign(rnd(kShape, 5))));
}
TEST(ElementwiseGrads, Exp) { unary(&exp, rnd(kShape, 6)); }
TEST(ElementwiseGrads, Log) { unary(&log, uniform(kShape, 7, 0.5, 2.0)); }
TEST(ElementwiseGrads, Log1p) { unary(&log1p, uniform(kShape, 8, -0.5, 2.0)); }
TEST(ElementwiseGrads, Expm1) { unary(&expm1, rnd(kShape, 9)); }
TEST(ElementwiseGrads, Tanh) { unary(&tanh, rnd(kShape, 10)); }
TEST(ElementwiseGrads, Logistic) { unary(&sigmoid, rnd(kShape, 11)); }
TEST(ElementwiseGrads, Sqrt) { unary(&sqrt, uniform(kShape, 12, 0.5, 2.0)); }
TEST(ElementwiseGrads, Rsqrt) { unary(&rsqrt, uniform(kShape, 13, 0.5, 2.0)); }
TEST(ElementwiseGrads, Sin) { unary(&sin, rnd(kShape, 14)); }
TEST(ElementwiseGrads, Cos) { unary(&cos, rnd(kShape, 15)); }
TEST(ElementwiseGrads, Erf) { unary(&erf, rnd(kShape, 16)); }
TEST(ElementwiseGrads, FloorAndRoundHaveZeroDerivative) {
  // Away from the jumps (x = k + 0.3 +- noise), both are locally constant.
  Tensor x = uniform(kShape, 17, -0.1, 0.1) + arange(0.3, 6.3, 1.0, DType::f64).reshape(kShape);
  unary(&floor, x);
  unary(&round, x);
}
TEST(ElementwiseGrads, Pow) {
  expect_grads(one([](const Tensors& a) { return pow(a[0], a[1]); }),
               {uniform(kShape, 18, 0.5, 2.0), rnd(kShape, 19)});
}
TEST(ElementwiseGrads, Atan2) {
  // Points in every quadrant, away from the origin and from the branch cut at x < 0, y = 0.
  expect_grads(one([](const Tensors& a) { return atan2(a[0], a[1]); }),
               {uniform(kShape, 40, 0.5, 2.0), rnd(kShape, 41)});
  expect_grads(one([](const Tensors& a) { return atan2(a[0], a[1]); }),
               {uniform(kShape, 42, -2.0, -0.5), rnd(kShape, 43)});
}
TEST(ElementwiseGrads, PowAtZeroBase) {
  // 0^b with b > 0: d/da is b 0^(b-1) (0 for b > 1), d/db is 0 (log(0) replaced), no NaN.
  Tensor a = from_vector<double>({0.0, 0.0}, {2}), b = from_vector<double>({2.0, 3.0}, {2});
  auto [ga, gb] =
      grad([](const Tensor& x, const Tensor& y) { return pow(x, y).sum(); }, argnums<0, 1>)(a, b);
  EXPECT_EQ(values(ga), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(values(gb), (std::vector<double>{0.0, 0.0}));
}
TEST(ElementwiseGrads, MaxMin) {
  expect_grads(one([](const Tensors& a) { return maximum(a[0], a[1]); }),
               {rnd(kShape, 20), rnd(kShape, 21)});
  expect_grads(one([](const Tensors& a) { return minimum(a[0], a[1]); }),
               {rnd(kShape, 20), rnd(kShape, 21)});
}
TEST(ElementwiseGrads, MaxTiesShareTheCotangent) {
  Tensor a = from_vector<double>({1.0, 2.0, 3.0}, {3}),
         b = from_vector<double>({1.0, 5.0, 0.0}, {3});
  auto [ga, gb] = grad([](const Tensor& x, const Tensor& y) { return maximum(x, y).sum(); },
                       argnums<0, 1>)(a, b);
  EXPECT_EQ(values(ga), (std::vector<double>{0.5, 0.0, 1.0}));
  EXPECT_EQ(values(gb), (std::vector<double>{0.5, 1.0, 0.0}));
}
TEST(ElementwiseGrads, SelectAndCompare) {
  // The predicate (a compare) gets no cotangent; each branch gets the cotangent where picked.
  expect_grads(one([](const Tensors& a) { return where(gt(a[0], a[1]), a[0] * a[1], a[1]); }),
               {rnd(kShape, 22), rnd(kShape, 23)});
  // A scalar predicate.
  expect_grads(one([](const Tensors& a) {
                 Tensor p = gt(a[0].sum(), zeros({}, a[0].dtype()));
                 return op(OpCode::select, {p, exp(a[0]), a[1] * a[1]});
               }),
               {rnd(kShape, 24), rnd(kShape, 25)});
}
TEST(ElementwiseGrads, ConvertBetweenFloats) {
  // f32 -> f64 and f64 -> f32 (the cotangent converts back).
  expect_grads(one([](const Tensors& a) { return sin(a[0].to(DType::f64)); }),
               {rnd(kShape, 26, DType::f32)});
  // (Order 1: a second-order function of an f64 input through f32 values is not smooth at f64
  // tolerances.)
  expect_grads(one([](const Tensors& a) { return (a[0].to(DType::f32) * 3.0); }), {rnd(kShape, 27)},
               1);
}
TEST(ElementwiseGrads, ConvertFromIntegersHasNoGradient) {
  // The integer argument is held fixed; the float one is differentiated through x * float(i).
  Tensor i = ints<int32_t>({1, -2, 3, 4, 0, 6}, kShape);
  expect_grads(one([](const Tensors& a) { return a[0] * a[1].to(a[0].dtype()); }),
               {rnd(kShape, 28), i});
  // float -> int -> float is piecewise constant.
  auto g = grad([](const Tensor& x) { return (x.to(DType::i32).to(DType::f64) * x).sum(); })(
      from_vector<double>({1.5, 2.5}, {2}));
  EXPECT_EQ(values(g), (std::vector<double>{1.0, 2.0}));
}
TEST(ElementwiseGrads, Float32Family) {
  // One f32 case for the family: a chain of unary and binary ops (f32 tolerances).
  expect_grads(one([](const Tensors& a) {
                 return tanh(a[0]) * exp(a[1] * 0.5) / (a[0] * a[0] + 1.0) -
                        sqrt(a[1] * a[1] + 2.0);
               }),
               {rnd(kShape, 29, DType::f32), rnd(kShape, 30, DType::f32)});
}
TEST(ElementwiseGrads, Broadcasting) {
  // The API's broadcasts are broadcast_in_dim nodes: the cotangent is reduced back.
  expect_grads(one([](const Tensors& a) { return a[0] * a[1] + a[1]; }),
               {rnd({2, 3}, 31), rnd({3}, 32)});
}

// ---- rem, erf_inv, exp2, tan, clamp (real derivatives); ceil, is_finite and the bitwise ops
// and shifts (none) ----
namespace {
Tensor prim(OpCode op, const Tensors& a) { return record_op(op, a); }
}  // namespace

TEST(ElementwiseGrads, Rem) {
  // Away from the jumps of trunc(a / b): a / b in (k + 0.1, k + 0.9).
  Tensor b = uniform(kShape, 30, 0.5, 2.0);
  Tensor a =
      b * (uniform(kShape, 31, 0.1, 0.9) + from_vector<double>({-3, -1, 0, 1, 2, 4}, kShape));
  expect_grads(one([](const Tensors& v) { return prim(OpCode::rem, v); }), {a, b});
  expect_grads(one([](const Tensors& v) { return prim(OpCode::rem, v); }), {a, -b});
}
TEST(ElementwiseGrads, ErfInvExp2Tan) {
  expect_grads(one([](const Tensors& v) { return prim(OpCode::erf_inv, v); }),
               {uniform(kShape, 32, -0.9, 0.9)});
  expect_grads(one([](const Tensors& v) { return prim(OpCode::exp2, v); }), {rnd(kShape, 33)});
  expect_grads(one([](const Tensors& v) { return prim(OpCode::tan, v); }),
               {uniform(kShape, 34, -1.2, 1.2)});
}
TEST(ElementwiseGrads, ClampAwayFromTheBounds) {
  Tensor x = from_vector<double>({-2.0, -0.5, 0.3, 0.9, 1.7, 3.0}, kShape);
  Tensor lo = from_vector<double>({-1.0, -1.0, 0.0, 0.0, 0.0, 2.0}, kShape);
  Tensor hi = from_vector<double>({1.0, 1.0, 1.0, 0.5, 1.0, 1.0}, kShape);  // lo > hi last
  expect_grads(one([](const Tensors& v) { return prim(OpCode::clamp, v); }), {lo, x, hi});
  // Scalar bounds sum their share.
  expect_grads(one([](const Tensors& v) { return prim(OpCode::clamp, v); }),
               {scalar_tensor(-0.7, DType::f64), x, scalar_tensor(1.1, DType::f64)});
}
// As torch.clamp: x gets the cotangent where lo <= x <= hi (ties included), lo where x < lo < hi,
// hi where x > hi or hi < lo; NaN passes nothing.
TEST(ElementwiseGrads, ClampAtTiesAndNaNAsPyTorch) {
  Tensor x = from_vector<double>({0.0, 1.0, 0.5, NAN, -1.0, 2.0, 0.7}, {7});
  Tensor lo = from_vector<double>({0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0}, {7});
  Tensor hi = from_vector<double>({1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0}, {7});
  auto [out, pull] = vjp(
      [](const Tensor& l, const Tensor& v, const Tensor& h) {
        return prim(OpCode::clamp, {l, v, h});
      },
      lo, x, hi);
  auto g = pull(ones({7}, DType::f64));
  EXPECT_EQ(values(std::get<1>(g)), (std::vector<double>{1, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(values(std::get<0>(g)), (std::vector<double>{0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(values(std::get<2>(g)), (std::vector<double>{0, 0, 1, 0, 0, 1, 0}));
  auto [y, t] = jvp(
      [](const Tensor& v) {
        return prim(OpCode::clamp, {zeros({7}, DType::f64), v, ones({7}, DType::f64)});
      },
      std::make_tuple(x), std::make_tuple(ones_like(x)));
  EXPECT_EQ(values(t), (std::vector<double>{1, 1, 1, 0, 0, 0, 1}));
}
TEST(ElementwiseGrads, PiecewiseConstantAndIntegerOpsHaveNoDerivative) {
  Tensor x = uniform(kShape, 35, 0.1, 0.4) + from_vector<double>({-2, -1, 0, 1, 2, 3}, kShape);
  expect_grads(one([](const Tensors& v) { return prim(OpCode::ceil, v); }), {x});
  auto g = grad([](const Tensor& v) {
    return (prim(OpCode::ceil, {v}) * v + where(prim(OpCode::is_finite, {v}), v, 0.0)).sum();
  })(x);
  EXPECT_EQ(values(g), values(prim(OpCode::ceil, {x}) + 1.0));
  // The bitwise ops of integers inside a differentiated function: no gradient flows through.
  auto h = grad([](const Tensor& v) {
    Tensor i = v.to(DType::i32);
    Tensor bits = prim(OpCode::xor_, {prim(OpCode::shift_left, {i, i}), prim(OpCode::not_, {i})});
    return (bits.to(DType::f64) * v).sum();
  })(x);
  Tensor i = x.to(DType::i32);
  EXPECT_EQ(values(h),
            values(prim(OpCode::xor_, {prim(OpCode::shift_left, {i, i}), prim(OpCode::not_, {i})})
                       .to(DType::f64)));
}
