// Forward mode through pure functions (issue 20, trap 2): jvp of code that calls an assume_pure
// or jit function differentiates the traced program (its JVP program), as JAX differentiates
// jit in both modes; forward-over-reverse Hessian-vector products work through pure layers.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lazax/autodiff/control_flow.h"
#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/transforms.h"
#include "pure_test_util.h"

using namespace lazax;
using lazax::pure_test::expect_near;
using lazax::pure_test::vec;

namespace {

// A layer with a transcendental, a matmul, an integer input and a capture: every kind of input
// a traced program takes.
Tensor layer(const Tensor& w, const Tensor& x, const Tensor& steps) {
  return tanh(matmul(x, w)) * steps.to(DType::f32) + x.sum();
}

}  // namespace

TEST(ForwardModeThroughPure, JvpOfAssumePureMatchesTheUntracedFunction) {
  Tensor w = from_vector<float>({0.5f, -1.0f, 2.0f, 0.25f, 1.5f, -0.75f}, {3, 2});
  Tensor x = from_vector<float>({1, 2, 3, -1, 0.5f, 0}, {2, 3});
  Tensor steps = scalar_tensor(3, DType::i32);
  Tensor tw = from_vector<float>({1, 0, -1, 2, 0.5f, 0}, {3, 2});
  Tensor tx = from_vector<float>({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, {2, 3});
  auto pure_layer = assume_pure(layer);
  auto plain = [&](const Tensor& a, const Tensor& b) { return sin(layer(a, b, steps)); };
  auto traced = [&](const Tensor& a, const Tensor& b) { return sin(pure_layer(a, b, steps)); };
  for (int call = 0; call < 2; ++call) {  // the first call traces, the second replays
    auto [y0, t0] = jvp(plain, std::make_tuple(w, x), std::make_tuple(tw, tx));
    auto [y1, t1] = jvp(traced, std::make_tuple(w, x), std::make_tuple(tw, tx));
    expect_near(vec(y1), vec(y0));
    expect_near(vec(t1), vec(t0));
  }
  // and against central differences
  const double h = 1e-3;
  Tensor up = layer(w + tw * h, x + tx * h, steps), down = layer(w - tw * h, x - tx * h, steps);
  auto [y, t] = jvp([&](const Tensor& a, const Tensor& b) { return pure_layer(a, b, steps); },
                    std::make_tuple(w, x), std::make_tuple(tw, tx));
  expect_near(vec(t), vec((up - down) / (2 * h)), 2e-2f);
}

TEST(ForwardModeThroughPure, JvpOfJitAndOfACapture) {
  Tensor w = from_vector<float>({0.5f, -1.0f, 2.0f}, {3});
  auto f = jit([&](const Tensor& x) { return exp(x * w).sum(); });  // w is captured
  Tensor x = from_vector<float>({1, 2, 3}, {3});
  Tensor tx = from_vector<float>({1, -1, 0.5f}, {3});
  auto [y, t] = jvp([&](const Tensor& a) { return f(a); }, std::make_tuple(x), std::make_tuple(tx));
  double want = 0;
  std::vector<float> wv = vec(w), xv = vec(x), tv = vec(tx);
  for (size_t i = 0; i < 3; ++i) want += std::exp(xv[i] * wv[i]) * wv[i] * tv[i];
  EXPECT_NEAR(t.item(), want, 1e-3 * std::abs(want));
}

TEST(ForwardModeThroughPure, ForwardOverReverseHessianVectorProduct) {
  auto loss = [](const Tensor& w, const Tensor& x) { return (tanh(x * w) * w).sum(); };
  auto pure_loss = assume_pure(loss);
  Tensor x = from_vector<float>({1, -2, 0.5f}, {3});
  Tensor w = from_vector<float>({0.3f, 0.1f, -0.4f}, {3});
  Tensor v = from_vector<float>({1, 0.5f, -2}, {3});
  auto hvp = [&](auto&& fn) {
    auto g = grad([&](const Tensor& a) { return fn(a, x); });
    return jvp([&](const Tensor& a) { return g(a); }, std::make_tuple(w), std::make_tuple(v))
        .second;
  };
  Tensor want = hvp(loss);
  Tensor got = hvp(pure_loss);
  expect_near(vec(got), vec(want));
  // The Hessian is diagonal here: d2/dw2 of tanh(xw)w = 2x sech^2(xw) - 2x^2 w sech^2 tanh.
  std::vector<float> xv = vec(x), wv = vec(w), vv = vec(v), gv = vec(got);
  for (size_t i = 0; i < 3; ++i) {
    double s = 1 / std::cosh(xv[i] * wv[i]), th = std::tanh(xv[i] * wv[i]);
    double h = 2 * xv[i] * s * s - 2 * xv[i] * xv[i] * wv[i] * s * s * th;
    EXPECT_NEAR(gv[i], h * vv[i], 1e-4) << "at " << i;
  }
}

TEST(ForwardModeThroughPure, JvpOfACustomVjpStillSaysWhy) {
  auto f = custom_vjp(
      [](const Tensor& x) { return std::make_pair(x * 2.0, x); },
      [](const Tensor& /*residual*/, const Tensor& ct) { return std::make_tuple(ct * 2.0); });
  try {
    jvp([&](const Tensor& x) { return f(x); }, std::make_tuple(ones({2})),
        std::make_tuple(ones({2})));
    FAIL() << "expected NotDifferentiableError";
  } catch (const NotDifferentiableError& e) {
    EXPECT_NE(std::string(e.what()).find("custom_vjp"), std::string::npos) << e.what();
  }
}

// A pure function with a while loop has no reverse mode (as in JAX) but a forward one: jvp
// through the assume_pure call works (x doubled while its sum is under 10: twice from
// [1, 1, 0.5], so d/dx = 4), and a backward pass through the call says why it cannot.
TEST(ForwardModeThroughPure, JvpThroughAPureWhileLoopAndBackwardSaysWhy) {
  auto f = assume_pure([](const Tensor& x) {
    return while_loop([](const Tensor& c) { return c.sum() < 10.0; },
                      [](const Tensor& c) { return c * 2.0; }, x);
  });
  Tensor x = from_vector<float>({1, 1, 0.5f}, {3});
  Tensor tx = from_vector<float>({1, -1, 2}, {3});
  for (int k = 0; k < 2; ++k) {  // the second call finds the failed split remembered
    auto [y, t] =
        jvp([&](const Tensor& a) { return f(a); }, std::make_tuple(x), std::make_tuple(tx));
    EXPECT_EQ(vec(y), (std::vector<float>{4, 4, 2}));
    EXPECT_EQ(vec(t), (std::vector<float>{4, -4, 8}));
  }
  Tensor xg = x.detach().requires_grad_();
  Tensor loss = f(xg).sum();  // recording it is fine; the backward pass is not
  try {
    loss.backward();
    FAIL() << "expected NotDifferentiableError";
  } catch (const NotDifferentiableError& e) {
    EXPECT_NE(std::string(e.what()).find("while_loop"), std::string::npos) << e.what();
  }
}
