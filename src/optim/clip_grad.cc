// clip_grad_norm_, in PyTorch's order of operations: each gradient's norm, the norm of those,
// clip_coef = reciprocal(total + 1e-6) * max_norm (Python's max_norm / tensor), clamped to 1.
#include "lazax/optim/clip_grad.h"

#include <cmath>
#include <string>

#include "lazax/core/error.h"

namespace lazax::optim {
namespace {
Tensor norm2(const Tensor& x) { return sqrt(sum(square(x))); }
}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm) {
  if (!(max_norm > 0) || !std::isfinite(max_norm)) {
    throw ValueError("[clip_grad_norm_] max_norm must be > 0 and finite, got " +
                     std::to_string(max_norm) + " (to turn clipping off, do not call it)");
  }
  NoGrad off;
  std::vector<Tensor> grads;
  for (const Tensor& p : params)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return Tensor(Literal::scalar(0.0f));
  const DType t = grads[0].dtype();
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads) norms.push_back(norm2(g).to(t));
  Tensor total = norm2(stack(norms));
  Tensor coef = Tensor(Literal::scalar_of(t, 1.0)) / (total + Tensor(Literal::scalar_of(t, 1e-6))) *
                Tensor(Literal::scalar_of(t, max_norm));
  Tensor clamped = minimum(coef, Tensor(Literal::scalar_of(t, 1.0)));
  for (Tensor g : grads) g.mul_(clamped.to(g.dtype()));
  return total;
}

Tensor clip_grad_norm_(const NamedTensors& params, double max_norm) {
  std::vector<Tensor> ps;
  ps.reserve(params.size());
  for (const auto& [name, p] : params) ps.push_back(p);
  return clip_grad_norm_(ps, max_norm);
}

}  // namespace lazax::optim
