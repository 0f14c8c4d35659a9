// Jacobians and Hessians built on vmap (JAX's jacfwd, jacrev, hessian), for a function of one
// tensor returning one tensor: the result has shape y.shape ++ x.shape.
//   jacrev(f)(x): vmap of f's VJP over the rows of the identity (one per output element)
//   jacfwd(f)(x): vmap of f's JVP over the columns of the identity (one per input element)
//   hessian(f)(x) = jacfwd(jacrev(f))(x)
#pragma once
#include <tuple>
#include <vector>

#include "lazax/autodiff/transforms.h"
#include "lazax/autodiff/vmap.h"

namespace lazax {

namespace detail {
// The identity as `n` stacked one-hot tensors of `shape`, of `like`'s dtype.
inline Tensor one_hots(const std::vector<int64_t>& shape, DType dtype) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> s{n};
  s.insert(s.end(), shape.begin(), shape.end());
  return eye(n, n, dtype).reshape(s);
}
// shape_a ++ shape_b.
inline std::vector<int64_t> joined(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace detail

template <class F>
auto jacrev(F f) {
  return [f](const Tensor& x) {
    Tensor y = f(x);
    // x is an unbatched argument (not captured), so the VJP inside the trace is w.r.t. it.
    auto row = [&](const Tensor& ct, const Tensor& at) {
      return std::get<0>(vjp(f, at).second(ct));
    };
    Tensor rows =
        vmap(row, {.in_axes = {0, std::nullopt}})(detail::one_hots(y.sizes(), y.dtype()), x);
    return rows.reshape(detail::joined(y.sizes(), x.sizes()));
  };
}

template <class F>
auto jacfwd(F f) {
  return [f](const Tensor& x) {
    auto column = [&](const Tensor& t, const Tensor& at) {
      return jvp(f, std::tuple<Tensor>{at}, std::tuple<Tensor>{t}).second;
    };
    Tensor cols = vmap(column, {.in_axes = {0, std::nullopt}, .out_axes = -1})(
        detail::one_hots(x.sizes(), x.dtype()), x);
    std::vector<int64_t> y_shape = cols.sizes();
    y_shape.pop_back();
    return cols.reshape(detail::joined(y_shape, x.sizes()));
  };
}

template <class F>
auto hessian(F f) {
  return jacfwd(jacrev(std::move(f)));
}

}  // namespace lazax
