// Tensor's method forms, comparison operators and compound assignment (torch::Tensor's surface):
// each method gives exactly what its free function gives, the operators give bool tensors, and
// compound assignment is the in-place op (seen through copies of the handle, refused on a leaf
// that requires grad, as add_).
#include <cmath>

#include "api_test_util.h"
#include "lazax/lazax.h"

namespace lazax {
namespace {

using testing::expect_error;
using testing::expect_near;
using testing::values;

Tensor sample() { return from_vector<float>({-1.5f, -0.25f, 0.0f, 0.5f, 2.0f, 3.0f}, {2, 3}); }

// Bitwise equal values, same dtype and shape.
void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.sizes(), b.sizes());
  std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(y[i])) {
      EXPECT_TRUE(std::isnan(x[i])) << i;
    } else {
      EXPECT_EQ(x[i], y[i]) << i;
    }
  }
}

TEST(Methods, EachMethodIsItsFreeFunction) {
  Tensor x = sample(), y = sample() * 0.5 + 1.0;
  Tensor pos = abs(x) + 0.5;
  expect_same(x.abs(), abs(x));
  expect_same(x.neg(), neg(x));
  expect_same(x.sign(), sign(x));
  expect_same(x.exp(), exp(x));
  expect_same(pos.log(), log(pos));
  expect_same(pos.log1p(), log1p(pos));
  expect_same(x.expm1(), expm1(x));
  expect_same(pos.sqrt(), sqrt(pos));
  expect_same(pos.rsqrt(), rsqrt(pos));
  expect_same(x.square(), square(x));
  expect_same(x.sin(), sin(x));
  expect_same(x.cos(), cos(x));
  expect_same(x.tanh(), tanh(x));
  expect_same(x.sigmoid(), sigmoid(x));
  expect_same(x.erf(), erf(x));
  expect_same(x.floor(), floor(x));
  expect_same(x.round(), round(x));
  expect_same(x.relu(), relu(x));
  expect_same(x.gelu(), gelu(x));
  expect_same(x.gelu(true), gelu(x, true));
  expect_same(x.silu(), silu(x));
  expect_same(x.softmax(-1), softmax(x, -1));
  expect_same(x.log_softmax(0), log_softmax(x, 0));
  expect_same(x.logsumexp({1}, true), logsumexp(x, {1}, true));
  expect_same(x.pow(2), pow(x, 2));
  expect_same(pos.pow(1.5), pow(pos, 1.5));
  expect_same(pos.pow(y), pow(pos, y));
  expect_same(x.clamp(-1.0, 1.0), clamp(x, -1.0, 1.0));
  expect_same(x.clamp_min(0.25), clamp(x, 0.25, std::nullopt));
  expect_same(x.clamp_max(0.25), clamp(x, std::nullopt, 0.25));
  expect_same(x.maximum(y), maximum(x, y));
  expect_same(x.minimum(y), minimum(x, y));
  expect_same(x.matmul(y.t()), matmul(x, y.t()));
  expect_same(x.add(y), x + y);
  expect_same(x.sub(y), x - y);
  expect_same(x.mul(y), x * y);
  expect_same(x.div(y), x / y);
  expect_same(x.amin({0}), amin(x, {0}));
  expect_same(x.prod({1}, true), prod(x, {1}, true));
  expect_same(x.cumsum(1), cumsum(x, 1));
  expect_same(x.sum({1}), sum(x, {1}));
  expect_same(x.mean(), mean(x));
}

TEST(Methods, ValuesAreRight) {
  // Spot checks against plain C++ (the free functions have their own tests).
  Tensor x = sample();
  expect_near(values(x.abs().sum(), DType::f32, {}), {7.25});
  expect_near(values(x.relu(), DType::f32, {2, 3}), {0, 0, 0, 0.5, 2, 3});
  expect_near(values(x.pow(2).sum({1}), DType::f32, {2}), {1.5 * 1.5 + 0.0625, 0.25 + 4 + 9});
  expect_near(values(x.clamp(-1.0, 1.0), DType::f32, {2, 3}), {-1, -0.25, 0, 0.5, 1, 1});
  expect_near(values(x.max(), DType::f32, {}), {3});  // every element, as torch's x.max()
  expect_near(values(x.min(), DType::f32, {}), {-1.5});
  expect_near(values(x.max(0), DType::f32, {3}), {0.5, 2, 3});
}

TEST(Operators, ComparisonsGiveBoolTensors) {
  Tensor x = sample(), y = full({2, 3}, 0.5);
  expect_near(values(x == y, DType::boolean, {2, 3}), {0, 0, 0, 1, 0, 0});
  expect_near(values(x != y, DType::boolean, {2, 3}), {1, 1, 1, 0, 1, 1});
  expect_near(values(x < y, DType::boolean, {2, 3}), {1, 1, 1, 0, 0, 0});
  expect_near(values(x <= y, DType::boolean, {2, 3}), {1, 1, 1, 1, 0, 0});
  expect_near(values(x > y, DType::boolean, {2, 3}), {0, 0, 0, 0, 1, 1});
  expect_near(values(x >= y, DType::boolean, {2, 3}), {0, 0, 0, 1, 1, 1});
  // Scalars on either side, floating and integer (an int compares in the tensor's dtype).
  expect_near(values(x == 0.5, DType::boolean, {2, 3}), {0, 0, 0, 1, 0, 0});
  expect_near(values(0.5 <= x, DType::boolean, {2, 3}), {0, 0, 0, 1, 1, 1});
  expect_near(values(2 > x, DType::boolean, {2, 3}), {1, 1, 1, 1, 0, 0});
  expect_near(values(x >= 2, DType::boolean, {2, 3}), {0, 0, 0, 0, 1, 1});
  Tensor i = from_vector<int32_t>({1, 2, 3}, {3});
  expect_near(values(i != 2, DType::boolean, {3}), {1, 0, 1});
  expect_near(values(i.eq(from_vector<int32_t>({1, 0, 3}, {3})), DType::boolean, {3}), {1, 0, 1});
  // Broadcasting, as the free functions.
  expect_near(values(x > full({3}, 0.0), DType::boolean, {2, 3}), {0, 0, 0, 1, 1, 1});
  expect_error<ShapeError>([&] { (void)(x == full({4}, 0.0)); }, {"compare", "[2,3]", "[4]"});
}

TEST(Operators, CompoundAssignmentIsInPlace) {
  Tensor x = sample();
  Tensor alias = x;  // a copy of the handle sees the in-place update
  x += 1.0;
  x *= 2;
  x -= full({3}, 1.0);  // broadcast
  x /= 2.0;
  expect_near(values(alias, DType::f32, {2, 3}), {-1.5 + 0.5, -0.25 + 0.5, 0.5, 1.0, 2.5, 3.5});
  Tensor y = ones({2, 3});
  y /= x;
  expect_near(values(y, DType::f32, {2, 3}), {-1, 4, 2, 1, 0.4, 1 / 3.5});

  // Integer tensors keep their dtype under integer operands, and refuse a floating result.
  Tensor i = from_vector<int32_t>({1, 2, 3}, {3});
  i += 2;
  i *= 3;
  i -= 1;
  expect_near(values(i, DType::i32, {3}), {8, 11, 14});
  expect_error<DTypeError>([&] { i += 0.5; }, {"add_", "i32"});
  expect_error<DTypeError>([&] { i /= 2; }, {"div_", "i32"});
  expect_near(values(i, DType::i32, {3}), {8, 11, 14});  // unchanged by the refused ops
}

TEST(Operators, CompoundAssignmentFollowsAutogradRules) {
  Tensor w = sample().requires_grad_();
  expect_error<ValueError>([&] { w += 1.0; }, {"add_", "leaf", "NoGrad"});
  {
    NoGrad ng;
    w -= 0.5;  // a parameter update
  }
  expect_near(values(w.detach(), DType::f32, {2, 3}), {-2, -0.75, -0.5, 0, 1.5, 2.5});
  // On a non-leaf, += is taped as add_: the gradient flows through it.
  Tensor h = w * 2.0;
  h += w;  // h = 3w
  h.sum().backward();
  expect_near(values(w.grad(), DType::f32, {2, 3}), {3, 3, 3, 3, 3, 3});
}

}  // namespace
}  // namespace lazax
