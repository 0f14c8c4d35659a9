// The functional transforms on top of the rules: custom_vjp, stop_gradient, grad of grad,
// value_and_grad with aux, vjp/jvp over trees; and check_grads catching wrong derivatives.
#include <map>
#include <tuple>

#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

void expect_near(const std::vector<double>& a, const std::vector<double>& b, double tol = 1e-12) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "element " << i;
}

struct Params {
  Tensor w, b;
  double scale = 1.0;  // a static leaf
  LAZAX_TREE_FIELDS(w, b, scale)
};

}  // namespace

TEST(Transforms, CustomVjpUsesBwd) {
  // sin with a (deliberately) different backward: 2 * ct.
  auto f = custom_vjp([](const Tensor& x) { return std::make_pair(sin(x), x); },
                      [](const Tensor&, const Tensor& ct) { return std::make_tuple(ct * 2.0); });
  Tensor x = rnd({3}, 1);
  expect_near(values(f(x)), values(sin(x)));
  expect_near(values(grad([&](const Tensor& v) { return f(v).sum(); })(x)), {2, 2, 2});
}

TEST(Transforms, CustomVjpUndefinedCotangentIsZero) {
  auto f = custom_vjp([](const Tensor& a, const Tensor& b) { return std::make_pair(a * b, a); },
                      [](const Tensor& a, const Tensor& ct) {
                        return std::make_tuple(ct * 3.0 + a * 0.0, Tensor());
                      });
  Tensor a = rnd({2}, 2), b = rnd({2}, 3);
  auto [ga, gb] =
      grad([&](const Tensor& x, const Tensor& y) { return f(x, y).sum(); }, argnums<0, 1>)(a, b);
  expect_near(values(ga), {3, 3});
  expect_near(values(gb), {0, 0});
}

TEST(Transforms, CustomVjpReturningTheWrongNumberOfCotangentsIsAnError) {
  // Two inputs (a list of two tensors), one cotangent returned.
  auto f = custom_vjp(
      [](const std::vector<Tensor>& xs) { return std::make_pair((xs[0] * xs[1]).sum(), xs[0]); },
      [](const Tensor& a, const Tensor& ct) {
        return std::make_tuple(std::vector<Tensor>{a * ct});
      });
  Tensor a = rnd({2}, 2).requires_grad_(), b = rnd({2}, 3).requires_grad_();
  Tensor y = f(std::vector<Tensor>{a, b});
  try {
    y.backward();
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[custom_vjp] bwd returned 1 cotangents for 2 inputs"),
              std::string::npos)
        << e.what();
  }
}

TEST(Transforms, StopGradient) {
  Tensor x = rnd({3}, 4);
  Tensor g = grad([](const Tensor& v) { return (v * stop_gradient(v * v)).sum(); })(x);
  expect_near(values(g), values(x * x));
}

TEST(Transforms, GradOfGrad) {
  auto f = [](const Tensor& x) { return pow(x, 3.0).sum(); };
  auto df = [f](const Tensor& x) { return grad(f)(x).sum(); };
  Tensor x = from_vector<double>({1.0, -2.0, 0.5}, {3});
  expect_near(values(grad(df)(x)), {6.0, -12.0, 3.0}, 1e-9);
  // Scalar x^3 -> 6x.
  auto s = [](const Tensor& v) { return v * v * v; };
  Tensor two = scalar_tensor(2.0, DType::f64);
  EXPECT_NEAR(grad([s](const Tensor& v) { return grad(s)(v); })(two).item(), 12.0, 1e-9);
}

// grad runs f on the tape: an in-place update of a leaf that requires grad (its input, or a
// captured parameter) raises as in plain code.
TEST(Transforms, InPlaceOnLeafThatRequiresGradRaisesInsideGrad) {
  Tensor x = from_vector<double>({1.0, 2.0}, {2});
  EXPECT_THROW(grad([](Tensor v) { return (v.add_(1.0) * v).sum(); })(x), ValueError);
  Tensor w = from_vector<double>({3.0, 4.0}, {2}).requires_grad_();
  EXPECT_THROW(grad([&](const Tensor& v) { return (v * w.mul_(2.0)).sum(); })(x), ValueError);
  expect_near(values(w), {3.0, 4.0});
  expect_near(values(x), {1.0, 2.0});
}

TEST(Transforms, ValueAndGradWithAux) {
  auto f = [](const Tensor& x) {
    Tensor y = (x * x).sum();
    return std::make_pair(y, x * 10.0);  // (value, aux)
  };
  Tensor x = from_vector<double>({1.0, 2.0}, {2});
  auto [out, g] = value_and_grad(f, has_aux)(x);
  auto [value, aux] = out;
  EXPECT_DOUBLE_EQ(value.item(), 5.0);
  expect_near(values(aux), {10.0, 20.0});
  expect_near(values(g), {2.0, 4.0});
  auto [v2, g2] = value_and_grad([](const Tensor& v) { return exp(v).sum(); })(x);
  EXPECT_NEAR(v2.item(), std::exp(1.0) + std::exp(2.0), 1e-12);
  expect_near(values(g2), values(exp(x)));
}

TEST(Transforms, VjpJvpOfMapsVectorsTuplesStructs) {
  std::map<std::string, Tensor> m{{"a", rnd({2}, 5)}, {"b", rnd({2}, 6)}};
  auto fm = [](const std::map<std::string, Tensor>& p) { return (p.at("a") * p.at("b")).sum(); };
  auto [ym, vjp_m] = vjp(fm, m);
  auto gm = std::get<0>(vjp_m(ones({}, DType::f64)));
  expect_near(values(gm.at("a")), values(m.at("b")));
  expect_near(values(gm.at("b")), values(m.at("a")));
  auto [jy, jt] = jvp(fm, std::make_tuple(m),
                      std::make_tuple(std::map<std::string, Tensor>{
                          {"a", ones({2}, DType::f64)}, {"b", zeros({2}, DType::f64)}}));
  EXPECT_NEAR(jt.item(), m.at("b").sum().item(), 1e-12);

  std::vector<Tensor> v{rnd({3}, 7), rnd({3}, 8)};
  auto fv = [](const std::vector<Tensor>& xs) {
    return std::vector<Tensor>{xs[0] * xs[1], sin(xs[0])};
  };
  auto [yv, vjp_v] = vjp(fv, v);
  auto gv = std::get<0>(vjp_v({ones({3}, DType::f64), zeros({3}, DType::f64)}));
  expect_near(values(gv[0]), values(v[1]));
  expect_near(values(gv[1]), values(v[0]));

  auto t = std::make_tuple(rnd({2}, 9), rnd({2}, 10));
  auto ft = [](const std::tuple<Tensor, Tensor>& p) {
    return std::make_tuple(std::get<0>(p) + std::get<1>(p), std::get<0>(p) * 2.0);
  };
  auto [yt, tt] =
      jvp(ft, std::make_tuple(t),
          std::make_tuple(std::make_tuple(ones({2}, DType::f64), ones({2}, DType::f64))));
  expect_near(values(std::get<0>(tt)), {2, 2});
  expect_near(values(std::get<1>(tt)), {2, 2});

  Params p{rnd({2, 2}, 11), rnd({2}, 12), 3.0};
  Tensor x = rnd({2}, 13);
  auto fp = [](const Params& q, const Tensor& in) {
    return ((matmul(q.w, in) + q.b) * q.scale).sum();
  };
  auto [yp, vjp_p] = vjp(fp, p, x);
  auto [gp, gx] = vjp_p(ones({}, DType::f64));
  EXPECT_EQ(gp.scale, 3.0);  // static leaves ride along
  expect_near(values(gp.b), {3, 3});
  Tensor gw = grad([&](const Tensor& w) { return fp(Params{w, p.b, 3.0}, x); })(p.w);
  expect_near(values(gp.w), values(gw));
  expect_near(values(gx), values(matmul(p.w.t(), ones({2}, DType::f64)) * 3.0));
}

TEST(CheckGrads, CatchesAWrongReverseRule) {
  auto f = custom_vjp(
      [](const Tensor& x) { return std::make_pair(sin(x), x); },
      [](const Tensor& x, const Tensor& ct) { return std::make_tuple(ct * cos(x) * 1.01); });
  try {
    check_grads([f](const Tensors& a) { return Tensors{f(a[0])}; }, {rnd({3}, 14)}, 1, Modes::rev);
    ADD_FAILURE() << "check_grads accepted a wrong VJP";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[check_grads] reverse mode mismatch for VJP: got"),
              std::string::npos)
        << e.what();
  }
}

TEST(CheckGrads, CatchesAWrongForwardDerivative) {
  // floor(1e6 x) / 1e6 has slope 0 for autodiff but ~1 for a finite difference: a "wrong" JVP.
  FlatFn f = [](const Tensors& a) { return Tensors{floor(a[0] * 1e6) / 1e6}; };
  try {
    check_grads(f, {rnd({3}, 15)}, 1, Modes::fwd);
    ADD_FAILURE() << "check_grads accepted a wrong JVP";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[check_grads] forward mode mismatch for JVP: output 0"),
              std::string::npos)
        << e.what();
  }
}

TEST(CheckGrads, RejectsBadArguments) {
  FlatFn f = [](const Tensors& a) { return a; };
  EXPECT_THROW(check_grads(f, {rnd({2}, 16)}, 0), ValueError);
  EXPECT_THROW(check_grads(f, {Tensor()}, 1), ValueError);
}
