// check_grads: JAX's numerical gradient checks (jax/_src/public_test_util.py), on the
// functional transforms vjp and jvp.
#include "lazax/autodiff/check_grads.h"

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <tuple>

#include "lazax/autodiff/transforms.h"

namespace lazax {
namespace {

using Tensors = std::vector<Tensor>;
using Host = std::vector<double>;

double default_tolerance(DType t) {
  switch (t) {
    case DType::f64:
      return 1e-5;
    case DType::f32:
      return 2e-3;
    case DType::f16:
      return 1e-2;
    case DType::bf16:
      return 1e-1;
    default:
      return 0.0;
  }
}

std::string num(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

Host host(const Tensor& t) { return t.to_vector<double>(); }

struct Checker {
  Modes modes;
  double eps;
  std::optional<double> atol, rtol;
  std::mt19937_64 rng{0x1a2a3a};

  double tol_atol(DType t) const { return atol ? *atol : default_tolerance(t); }
  double tol_rtol(DType t) const { return rtol ? *rtol : default_tolerance(t); }

  // A random normal direction shaped like t (zeros for integer and bool tensors: held fixed).
  Tensor random_like(const Tensor& t) {
    if (!is_floating(t.dtype())) return zeros(t.sizes(), t.dtype());
    std::normal_distribution<double> normal;
    Host v(static_cast<size_t>(t.numel()));
    for (double& x : v) x = normal(rng);
    return from_vector<double>(v, t.sizes()).to(t.dtype());
  }
  Tensors random_like(const Tensors& ts) {
    Tensors out;
    for (const Tensor& t : ts) out.push_back(random_like(t));
    return out;
  }

  // Central difference (f(x + eps v) - f(x - eps v)) / (2 eps), one host vector per output,
  // evaluated in float64 when f accepts it.
  std::vector<Host> numerical_jvp(const FlatFn& f, const Tensors& args, const Tensors& dirs) {
    try {
      return numerical_jvp_in(f, args, dirs, DType::f64);
    } catch (const DTypeError&) {
      return numerical_jvp_in(f, args, dirs, std::nullopt);
    }
  }
  std::vector<Host> numerical_jvp_in(const FlatFn& f, const Tensors& args, const Tensors& dirs,
                                     std::optional<DType> as) {
    NoGrad off;
    Tensors plus, minus;
    for (size_t i = 0; i < args.size(); ++i) {
      const Tensor& a = args[i];
      if (!is_floating(a.dtype())) {
        plus.push_back(a.detach());
        minus.push_back(a.detach());
        continue;
      }
      DType t = as ? *as : a.dtype();
      Tensor x = a.detach().to(t), v = dirs[i].to(t) * eps;
      plus.push_back(x + v);
      minus.push_back(x - v);
    }
    Tensors fp = f(plus), fm = f(minus);
    std::vector<Host> out;
    for (size_t j = 0; j < fp.size(); ++j) {
      Host p = host(fp[j]), m = host(fm[j]);
      for (size_t k = 0; k < p.size(); ++k) p[k] = (p[k] - m[k]) * (0.5 / eps);
      out.push_back(std::move(p));
    }
    return out;
  }

  // Elementwise |got - want| <= atol + rtol |want| for the floating outputs.
  void check_close(const Tensors& got, const std::vector<Host>& want, const std::string& what) {
    for (size_t j = 0; j < got.size(); ++j) {
      if (!is_floating(got[j].dtype())) continue;
      Host g = host(got[j]);
      const double at = tol_atol(got[j].dtype()), rt = tol_rtol(got[j].dtype());
      for (size_t k = 0; k < g.size(); ++k) {
        const double w = want[j][k];
        const double diff = std::abs(g[k] - w);
        if (!(diff <= at + rt * std::abs(w)) && !(std::isnan(g[k]) && std::isnan(w))) {
          throw ValueError("[check_grads] " + what + ": output " + std::to_string(j) + " (" +
                           got[j].type_str() + ") element " + std::to_string(k) + ": got " +
                           num(g[k]) + ", expected " + num(w) + " (|difference| " + num(diff) +
                           " > atol " + num(at) + " + rtol " + num(rt) + " * |expected|)");
        }
      }
    }
  }

  void check_jvp(const FlatFn& f, const Tensors& args, const std::string& name) {
    Tensors dirs = random_like(args);
    auto [outs, touts] = jvp(f, std::make_tuple(args), std::make_tuple(dirs));
    std::vector<Host> want_out;
    for (const Tensor& o : f(args)) want_out.push_back(host(o));
    check_close(outs, want_out, "forward mode primal mismatch for " + name);
    check_close(touts, numerical_jvp(f, args, dirs), "forward mode mismatch for " + name);
  }

  void check_vjp(const FlatFn& f, const Tensors& args, const std::string& name) {
    auto [outs, vjp_fn] = vjp(f, args);
    std::vector<Host> want_out;
    for (const Tensor& o : f(args)) want_out.push_back(host(o));
    check_close(outs, want_out, "reverse mode primal mismatch for " + name);
    Tensors dirs = random_like(args);
    std::vector<Host> jv = numerical_jvp(f, args, dirs);
    Tensors us = random_like(outs);
    Tensors cts = std::get<0>(vjp_fn(us));
    double got = 0, want = 0, scale = 0, tol_a = 0, tol_r = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!is_floating(args[i].dtype())) continue;
      Host v = host(dirs[i]), ct = host(cts[i]);
      for (size_t k = 0; k < v.size(); ++k) got += v[k] * ct[k];
      tol_a = std::max(tol_a, tol_atol(args[i].dtype()));
      tol_r = std::max(tol_r, tol_rtol(args[i].dtype()));
    }
    for (size_t j = 0; j < outs.size(); ++j) {
      if (!is_floating(outs[j].dtype())) continue;
      Host u = host(us[j]);
      for (size_t k = 0; k < u.size(); ++k) want += jv[j][k] * u[k];
      tol_a = std::max(tol_a, tol_atol(outs[j].dtype()));
      tol_r = std::max(tol_r, tol_rtol(outs[j].dtype()));
    }
    scale = std::abs(want);
    const double diff = std::abs(got - want);
    if (!(diff <= tol_a + tol_r * scale)) {
      throw ValueError("[check_grads] reverse mode mismatch for " + name +
                       ": got <v, J^T u> = " + num(got) + ", expected <J v, u> = " + num(want) +
                       " (|difference| " + num(diff) + " > atol " + num(tol_a) + " + rtol " +
                       num(tol_r) + " * |expected|)");
    }
  }

  void check(const FlatFn& f, const Tensors& args, int order, const std::string& of) {
    if (has_mode(modes, Modes::fwd)) {
      const std::string name = of.empty() ? "JVP" : "JVP of " + of;
      check_jvp(f, args, name);
      if (order > 1) {
        const size_t n = args.size();
        FlatFn g = [f, n](const Tensors& xs) {
          Tensors primals(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(n));
          Tensors tangents(xs.begin() + static_cast<std::ptrdiff_t>(n), xs.end());
          auto [o, t] = jvp(f, std::make_tuple(primals), std::make_tuple(tangents));
          o.insert(o.end(), t.begin(), t.end());
          return o;
        };
        Tensors both = args;
        both.insert(both.end(), args.begin(), args.end());
        check(g, both, order - 1, name);
      }
    }
    if (has_mode(modes, Modes::rev)) {
      const std::string name = of.empty() ? "VJP" : "VJP of " + of;
      check_vjp(f, args, name);
      if (order > 1) {
        FlatFn h = [f](const Tensors& xs) {
          auto [o, fn] = vjp(f, xs);
          return std::get<0>(fn(o));
        };
        check(h, args, order - 1, name);
      }
    }
  }
};

}  // namespace

void check_grads(const FlatFn& f, const std::vector<Tensor>& args, int order, Modes modes,
                 double eps, std::optional<double> atol, std::optional<double> rtol) {
  if (order < 1) throw ValueError("[check_grads] order must be >= 1, got " + std::to_string(order));
  if (!(eps > 0)) throw ValueError("[check_grads] eps must be > 0, got " + num(eps));
  for (const Tensor& a : args)
    if (!a.defined()) throw ValueError("[check_grads] an argument is an undefined tensor");
  Checker c{modes, eps, atol, rtol};
  c.check(f, args, order, "");
}

}  // namespace lazax
