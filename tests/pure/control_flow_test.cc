// cond / switch / while_loop / scan / fori_loop: staged, and differentiable where JAX's are.
#include "lazax/autodiff/control_flow.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/transforms.h"
#include "pure_test_util.h"

using namespace lazax;
using lazax::pure_test::vec;

namespace {
void expect_near(const std::vector<float>& a, const std::vector<float>& b, float tol = 1e-4f) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}
}  // namespace

TEST(ControlFlow, CondPicksTheBranchAtRunTime) {
  Tensor w = from_vector<float>({10, 20}, {2});  // captured by one branch
  auto run = [&](float v) {
    Tensor x = from_vector<float>({v, 2 * v}, {2});
    return cond(
        gt(x.sum(), zeros({})), [&](const Tensors& o) { return Tensors{o[0] * w}; },
        [](const Tensors& o) { return Tensors{-o[0]}; }, {x})[0];
  };
  EXPECT_EQ(vec(run(1)), (std::vector<float>{10, 40}));
  EXPECT_EQ(vec(run(-1)), (std::vector<float>{1, 2}));
}

TEST(ControlFlow, CondBranchesMustAgree) {
  Tensor x = ones({2});
  EXPECT_THROW(cond(
                   gt(x.sum(), zeros({})), [](const Tensors& o) { return Tensors{o[0]}; },
                   [](const Tensors& o) { return Tensors{o[0].sum()}; }, {x}),
               ShapeError);
  EXPECT_THROW(cond(
                   x, [](const Tensors& o) { return o; }, [](const Tensors& o) { return o; }, {x}),
               DTypeError);
}

// An integer predicate is true when nonzero (not an index: 2 and -1 are true, and an i64 value
// with only high bits set is not truncated to 0), in lazy mode, under a trace and under grad.
TEST(ControlFlow, CondTakesAnIntegerPredicate) {
  BranchFn plus = [](const Tensors& o) { return Tensors{o[0] + 1.0}; };
  BranchFn minus = [](const Tensors& o) { return Tensors{o[0] - 1.0}; };
  Tensor x = zeros({1});
  struct Case {
    DType dtype;
    double value;
    bool is_true;
  };
  for (const Case& k :
       {Case{DType::boolean, 0, false}, Case{DType::boolean, 1, true}, Case{DType::i32, 0, false},
        Case{DType::i32, 1, true}, Case{DType::i32, 2, true}, Case{DType::i32, -1, true},
        Case{DType::i64, 0, false}, Case{DType::i64, 4294967296.0, true}, Case{DType::u8, 0, false},
        Case{DType::u8, 7, true}}) {
    SCOPED_TRACE(std::string(dtype_name(k.dtype)) + " " + std::to_string(k.value));
    Tensor pred = scalar_tensor(k.value, k.dtype);
    EXPECT_EQ(cond(pred, plus, minus, {x})[0].item(), k.is_true ? 1.0 : -1.0);
  }
  // Under a trace: one program for both values, each call takes the right branch.
  auto traced =
      assume_pure([&](const Tensor& p, const Tensor& v) { return cond(p, plus, minus, {v})[0]; });
  EXPECT_EQ(traced(scalar_tensor(3, DType::i32), x).item(), 1.0);
  EXPECT_EQ(traced(scalar_tensor(0, DType::i32), x).item(), -1.0);
  EXPECT_EQ(traced.cache_size(), 1u);
  // A predicate computed inside the trace.
  auto computed = assume_pure([&](const Tensor& v) {
    return cond(gt(v.sum(), zeros({})).to(DType::i32) * 5, plus, minus, {v})[0];
  });
  EXPECT_EQ(computed(ones({1})).item(), 2.0);
  EXPECT_EQ(computed(-ones({1})).item(), -2.0);
  // Under grad: the gradient of the branch taken.
  auto f = [](const Tensor& p, const Tensor& v) {
    return cond(
        p, [](const Tensors& o) { return Tensors{(o[0] * o[0]).sum()}; },
        [](const Tensors& o) { return Tensors{(o[0] * 3.0).sum()}; }, {v})[0];
  };
  Tensor v = from_vector<float>({0.5f, -2.0f}, {2});
  EXPECT_EQ(vec(grad(f, argnums<1>)(scalar_tensor(2, DType::i64), v)), (std::vector<float>{1, -4}));
  EXPECT_EQ(vec(grad(f, argnums<1>)(scalar_tensor(0, DType::i64), v)), (std::vector<float>{3, 3}));
  // Floating and non-scalar predicates are still refused.
  BranchFn same = [](const Tensors& o) { return o; };
  EXPECT_THROW(cond(scalar_tensor(1.0), same, same, {x}), DTypeError);
  EXPECT_THROW(cond(ones({2}, DType::i32), same, same, {x}), DTypeError);
}

TEST(ControlFlow, SwitchClampsItsIndex) {
  std::vector<BranchFn> bs = {[](const Tensors& o) { return Tensors{o[0] + 1.0}; },
                              [](const Tensors& o) { return Tensors{o[0] + 2.0}; }};
  Tensor x = zeros({1});
  EXPECT_EQ(switch_(scalar_tensor(-5, DType::i32), bs, {x})[0].item(), 1.0);
  EXPECT_EQ(switch_(scalar_tensor(1, DType::i32), bs, {x})[0].item(), 2.0);
  EXPECT_EQ(switch_(scalar_tensor(9, DType::i32), bs, {x})[0].item(), 2.0);
  // Other integer dtypes clamp before they narrow: 2^32 is past the end, not 0.
  EXPECT_EQ(switch_(scalar_tensor(4294967296.0, DType::i64), bs, {x})[0].item(), 2.0);
  EXPECT_EQ(switch_(scalar_tensor(-4294967295.0, DType::i64), bs, {x})[0].item(), 1.0);
  EXPECT_EQ(switch_(scalar_tensor(1, DType::i64), bs, {x})[0].item(), 2.0);
  EXPECT_EQ(switch_(scalar_tensor(200, DType::u8), bs, {x})[0].item(), 2.0);
  EXPECT_EQ(switch_(scalar_tensor(0, DType::u8), bs, {x})[0].item(), 1.0);
}

TEST(ControlFlow, CondGradientMatchesTheTakenBranch) {
  auto f = [](const Tensor& x) {
    return cond(
        gt(x.sum(), zeros({})), [](const Tensors& o) { return Tensors{(o[0] * o[0]).sum()}; },
        [](const Tensors& o) { return Tensors{sin(o[0]).sum()}; }, {x})[0];
  };
  Tensor xp = from_vector<float>({0.5f, 1.5f}, {2});
  expect_near(vec(grad(f)(xp)), {1.0f, 3.0f});
  Tensor xn = from_vector<float>({-0.5f, -1.5f}, {2});
  expect_near(vec(grad(f)(xn)), std::vector<float>{std::cos(-0.5f), std::cos(-1.5f)});
  // forward mode
  auto [y, t] =
      jvp([&](const Tensor& x) { return f(x); }, std::make_tuple(xp), std::make_tuple(ones({2})));
  EXPECT_NEAR(t.item(), 4.0, 1e-5);
}

TEST(ControlFlow, WhileLoopSumsAndIsNotReverseDifferentiable) {
  Tensors r =
      while_loop([](const Tensors& c) { return Tensors{le(c[0], full({}, 10, DType::i32))}; },
                 [](const Tensors& c) {
                   return Tensors{c[0] + 1, c[1] + c[0].to(DType::f32)};
                 },
                 {scalar_tensor(1, DType::i32), scalar_tensor(0)});
  EXPECT_EQ(r[1].item(), 55.0);
  auto f = [](const Tensor& x) {
    return while_loop([](const Tensors& c) { return Tensors{lt(c[0], full({}, 3, DType::i32))}; },
                      [](const Tensors& c) {
                        return Tensors{c[0] + 1, c[1] * 2.0};
                      },
                      {scalar_tensor(0, DType::i32), x})[1];
  };
  try {
    grad(f)(scalar_tensor(1.0));
    FAIL() << "expected NotDifferentiableError";
  } catch (const NotDifferentiableError& e) {
    EXPECT_NE(std::string(e.what()).find("Reverse-mode differentiation does not work"),
              std::string::npos)
        << e.what();
  }
}

TEST(ControlFlow, ScanAndItsGradient) {
  Tensor xs = from_vector<float>({1, 2, 3, 4}, {4});
  auto [c, ys] = scan(
      [](const Tensors& carry, const Tensors& x) {
        Tensor n = carry[0] + x[0];
        return std::make_pair(Tensors{n}, Tensors{n * 2.0});
      },
      {scalar_tensor(0)}, {xs});
  EXPECT_EQ(c[0].item(), 10.0);
  EXPECT_EQ(vec(ys[0]), (std::vector<float>{2, 6, 12, 20}));
  auto [cr, ysr] = scan(
      [](const Tensors& carry, const Tensors& x) {
        Tensor n = carry[0] + x[0];
        return std::make_pair(Tensors{n}, Tensors{n});
      },
      {scalar_tensor(0)}, {xs}, /*reverse=*/true);
  EXPECT_EQ(vec(ysr[0]), (std::vector<float>{10, 9, 7, 4}));
  // A product recurrence h = tanh(w * h + x): gradient w.r.t. w and xs equals the unrolled one.
  auto scanned = [](const Tensor& w, const Tensor& x) {
    auto [h, y] = scan(
        [&](const Tensors& carry, const Tensors& xi) {
          Tensor n = tanh(w * carry[0] + xi[0]);
          return std::make_pair(Tensors{n}, Tensors{n});
        },
        {scalar_tensor(0.3)}, {x});
    return (h[0] + y[0].sum()).sum();
  };
  auto unrolled = [](const Tensor& w, const Tensor& x) {
    Tensor h = scalar_tensor(0.3), s = zeros({});
    for (int i = 0; i < 4; ++i) {
      h = tanh(w * h + x.select(0, i));
      s = s + h;
    }
    return h + s;
  };
  Tensor w = scalar_tensor(0.7);
  Tensor x = from_vector<float>({0.1f, -0.2f, 0.3f, 0.5f}, {4});
  auto g1 = grad(scanned, argnums<0, 1>)(w, x);
  auto g2 = grad(unrolled, argnums<0, 1>)(w, x);
  EXPECT_NEAR(std::get<0>(g1).item(), std::get<0>(g2).item(), 1e-5);
  expect_near(vec(std::get<1>(g1)), vec(std::get<1>(g2)), 1e-5f);
}

TEST(ControlFlow, ForiLoop) {
  Tensors r = fori_loop(
      0, 5, [](const Tensor& i, const Tensors& c) { return Tensors{c[0] + i.to(DType::f32)}; },
      {scalar_tensor(0)});
  EXPECT_EQ(r[0].item(), 10.0);
  auto f = [](const Tensor& x) {
    return fori_loop(0, 3, [](const Tensor&, const Tensors& c) { return Tensors{c[0] * c[0]}; },
                     {x})[0];
  };
  EXPECT_NEAR(grad(f)(scalar_tensor(1.1)).item(), 8 * std::pow(1.1, 7), 1e-3);
}

TEST(ControlFlow, ScanForwardModeMatchesReverse) {
  auto f = [](const Tensor& w) {
    Tensor x = from_vector<float>({0.1f, -0.2f, 0.3f}, {3});
    auto [h, y] = scan(
        [&](const Tensors& carry, const Tensors& xi) {
          Tensor n = tanh(w * carry[0] + xi[0]);
          return std::make_pair(Tensors{n}, Tensors{n * n});
        },
        {scalar_tensor(0.3)}, {x});
    return h[0] + y[0].sum();
  };
  Tensor w = scalar_tensor(0.7);
  auto [out, tan] = jvp([&](const Tensor& v) { return f(v); }, std::make_tuple(w),
                        std::make_tuple(scalar_tensor(1.0)));
  EXPECT_NEAR(tan.item(), grad(f)(w).item(), 1e-5);
}
