// vmap with the other transforms: per-example gradients (vmap of grad), grad of vmap, jit of
// vmap, vmap of vmap, assume_pure and control flow inside, random numbers, the errors, and
// jacfwd / jacrev / hessian against finite differences.
#include <gtest/gtest.h>

#include <cmath>

#include "lazax/ir/printer.h"
#include "vmap_test_util.h"

namespace lazax::vmap_test {
namespace {

std::vector<float> vec(const Tensor& t) { return t.to(DType::f32).to_vector<float>(); }
void expect_near(const Tensor& a, const Tensor& b, float tol = 1e-5f) {
  ASSERT_EQ(a.sizes(), b.sizes());
  std::vector<float> x = vec(a), y = vec(b);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "at " << i;
}

struct Mlp {
  Tensor w1, b1, w2;
  LAZAX_TREE_FIELDS(w1, b1, w2)
};
Tensor loss(const Mlp& p, const Tensor& x, const Tensor& y) {
  Tensor h = (matmul(x, p.w1) + p.b1).tanh();
  Tensor d = matmul(h, p.w2) - y;
  return (d * d).sum();
}
Mlp random_mlp() { return {randn({4, 8}), randn({8}), randn({8, 2})}; }

TEST(VmapCompose, PerExampleGradientsEqualTheLoop) {
  manual_seed(1);
  Mlp p = random_mlp();
  Tensor xs = randn({8, 4}), ys = randn({8, 2});
  auto g = grad(loss);
  Mlp batched = vmap(g, {.in_axes = {std::nullopt, 0, 0}})(p, xs, ys);
  for (int64_t i = 0; i < 8; ++i) {
    Mlp one = g(p, xs[i], ys[i]);
    expect_near(batched.w1[i], one.w1);
    expect_near(batched.b1[i], one.b1);
    expect_near(batched.w2[i], one.w2);
  }
}

TEST(VmapCompose, GradOfVmapEqualsTheSumOfGradients) {
  manual_seed(2);
  Mlp p = random_mlp();
  Tensor xs = randn({5, 4}), ys = randn({5, 2});
  auto total = [&](const Mlp& q) {
    return vmap(loss, {.in_axes = {std::nullopt, 0, 0}})(q, xs, ys).sum();
  };
  Mlp g = grad(total)(p);
  Tensor want = zeros({4, 8});
  for (int64_t i = 0; i < 5; ++i) want = want + grad(loss)(p, xs[i], ys[i]).w1;
  expect_near(g.w1, want, 1e-4f);
}

TEST(VmapCompose, JitOfVmapAndVmapOfVmap) {
  manual_seed(3);
  Tensor a = randn({3, 4, 5}), w = randn({5, 2});
  auto f = [](const Tensor& x, const Tensor& m) { return matmul(x, m).relu(); };
  auto vf = vmap(f, {.in_axes = {0, std::nullopt}});
  auto jf = jit([&](const Tensor& x, const Tensor& m) { return vf(x, m); });
  expect_near(jf(a, w), vf(a, w));
  // vmap of vmap over both leading dims of a 3x4 batch of vectors.
  Tensor v = randn({3, 4, 5});
  auto inner = vmap([&](const Tensor& x) { return matmul(x, w).exp().sum(); });
  Tensor got = vmap(inner)(v);
  ASSERT_EQ(got.sizes(), (std::vector<int64_t>{3, 4}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) expect_near(got[i][j], matmul(v[i][j], w).exp().sum());
}

TEST(VmapCompose, VmapOfAssumePureIsOneCallWithABatchedBody) {
  manual_seed(4);
  auto block = assume_pure([](const Tensor& a, const Tensor& m) { return matmul(a, m).tanh(); });
  Tensor w = randn({4, 3}), xs = randn({5, 4});
  auto vf = [&](const Tensor& ws) {
    return vmap([&](const Tensor& x) { return block(x, ws); })(xs);
  };
  FunctionPtr prog = trace(vf, w);
  int calls = 0;
  for (const Node& n : prog->nodes()) {
    if (n.op != OpCode::call) continue;
    ++calls;
    EXPECT_EQ(n.attr<CallAttrs>().callee->param_type(0).str(), "f32[5,4]");
  }
  EXPECT_EQ(calls, 1) << print_program(*prog);
  for (int64_t i = 0; i < 5; ++i) expect_near(vf(w)[i], block(xs[i], w));
  // Differentiated through the batched call: the sum of the per-example gradients.
  Tensor g = grad([&](const Tensor& ws) { return vf(ws).sum(); })(w);
  Tensor want = zeros({4, 3});
  for (int64_t i = 0; i < 5; ++i)
    want = want + grad([&](const Tensor& ws) { return block(xs[i], ws).sum(); })(w);
  expect_near(g, want, 1e-5f);
}

TEST(VmapCompose, OutAxesAndAxisSize) {
  Tensor x = randn({3, 2});
  Tensor y = vmap([](const Tensor& r) { return r * 2.0; }, {.out_axes = 1})(x);
  expect_near(y, x.t() * 2.0);
  Tensor c = randn({2});
  Tensor z = vmap([](const Tensor& r) { return r + 1.0; },
                  {.in_axes = {std::nullopt}, .out_axes = 0, .axis_size = 4})(c);
  ASSERT_EQ(z.sizes(), (std::vector<int64_t>{4, 2}));
  expect_near(z[3], c + 1.0);
}

TEST(VmapCompose, RandomNumbersFromTheGeneratorAreTheSamePerExample) {
  // The default generator's key is unbatched: each example draws the same numbers (docs/VMAP.md).
  manual_seed(5);
  Tensor x = zeros({3, 4});
  Tensor r = vmap([](const Tensor& e) { return e + rand({4}); })(x);
  expect_near(r[0], r[1], 0);
  expect_near(r[0], r[2], 0);
  // The generator advanced: a second call draws new numbers.
  Tensor s = vmap([](const Tensor& e) { return e + rand({4}); })(x);
  EXPECT_NE(vec(r[0]), vec(s[0]));
}

TEST(VmapErrors, MismatchedBatchSizesNameThePaths) {
  Mlp p = random_mlp();
  Tensor xs = randn({3, 4}), ys = randn({5, 2});
  try {
    vmap(loss, {.in_axes = {std::nullopt, 0, 0}})(p, xs, ys);
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("args[1] has 3 along axis 0"), std::string::npos) << m;
    EXPECT_NE(m.find("args[2] has 5 along axis 0"), std::string::npos) << m;
  }
  try {
    vmap([](const Mlp& q) { return q.w1.sum(); })(p);
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("args[0].w1 has 4"), std::string::npos) << m;
    EXPECT_NE(m.find("args[0].b1 has 8"), std::string::npos) << m;
  }
}

TEST(VmapErrors, OutAxesThatDoNotFitNameTheOutput) {
  Tensor x = randn({3, 2});
  try {
    vmap([](const Tensor& r) { return std::pair{r, r.sum()}; }, {.out_axes = 2})(x);
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("out_axes 2 does not fit output out.first"), std::string::npos) << m;
  }
  EXPECT_THROW(vmap([](const Tensor& r) { return r; }, {.in_axes = {std::nullopt}})(x), ValueError);
  EXPECT_THROW(vmap([](const Tensor& r) { return r; }, {.in_axes = {5}})(x), ShapeError);
  EXPECT_THROW(vmap([](const Tensor& r) { return r; }, {.out_axes = std::nullopt})(x), ValueError);
}

// d f / d x by central differences, shape y ++ x.
Tensor finite_differences(const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  std::vector<float> xv = vec(x.to(DType::f64));
  std::vector<int64_t> xs = x.sizes();
  std::vector<Tensor> cols;
  const double h = 1e-5;
  for (size_t i = 0; i < xv.size(); ++i) {
    std::vector<double> ev(xv.size(), 0.0);
    ev[i] = h;
    Tensor d = from_vector(ev, xs);
    cols.push_back((f(x + d) - f(x - d)) / (2 * h));
  }
  Tensor j = stack(cols, -1);
  std::vector<int64_t> shape = j.sizes();
  shape.pop_back();
  shape.insert(shape.end(), xs.begin(), xs.end());
  return j.reshape(shape);
}

TEST(Jacobians, EqualFiniteDifferences) {
  manual_seed(7);
  Tensor w = randn({3, 2}, DType::f64);
  auto f = [&](const Tensor& x) { return matmul(x, w).tanh() * x.sum(); };
  Tensor x = randn({2, 3}, DType::f64);
  Tensor fd = finite_differences(f, x);
  expect_near(jacrev(f)(x), fd, 1e-6f);
  expect_near(jacfwd(f)(x), fd, 1e-6f);
  auto g = [](const Tensor& v) { return (v.sin() * v).sum() + (v * v).sum() * v.sum(); };
  Tensor v = randn({3}, DType::f64);
  Tensor hfd = finite_differences(jacrev(g), v);
  expect_near(hessian(g)(v), hfd, 1e-5f);
}

}  // namespace
}  // namespace lazax::vmap_test
