// AdamW: torch.optim.AdamW's single-tensor update, operation for operation (so that results agree
// to the last bits where the arithmetic is the same), with the per-step numbers as data inputs.
#include "lazax/optim/adamw.h"

#include <cmath>
#include <map>

#include "lazax/core/error.h"

namespace lazax::optim {

AdamW::AdamW(NamedTensors params, AdamWOptions o)
    : Optimizer(std::move(params), o.lr, "adamw"), options_(o) {
  auto bad = [](const std::string& what) { throw ValueError("[adamw] " + what); };
  if (!(o.eps >= 0)) bad("invalid epsilon " + std::to_string(o.eps) + "; it must be >= 0");
  if (!(o.beta1 >= 0 && o.beta1 < 1))
    bad("invalid beta1 " + std::to_string(o.beta1) + "; it must be in [0, 1)");
  if (!(o.beta2 >= 0 && o.beta2 < 1))
    bad("invalid beta2 " + std::to_string(o.beta2) + "; it must be in [0, 1)");
  if (!(o.weight_decay >= 0))
    bad("invalid weight_decay " + std::to_string(o.weight_decay) + "; it must be >= 0");
}

std::vector<std::string> AdamW::state_names() const {
  if (options_.amsgrad) return {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  return {"exp_avg", "exp_avg_sq"};
}

void AdamW::update(const std::vector<size_t>& which) {
  const AdamWOptions& o = options_;
  struct Scalars {
    Tensor decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bc2_sqrt, eps, neg_step_size;
  };
  // One set per dtype and per step count (parameters that skipped steps have their own).
  std::map<std::pair<DType, int64_t>, Scalars> scalars;
  auto scalars_for = [&](DType t, int64_t step) -> const Scalars& {
    auto [it, fresh] = scalars.try_emplace({t, step});
    if (fresh) {
      const auto n = static_cast<double>(step);
      const double bc1 = 1 - std::pow(o.beta1, n), bc2 = 1 - std::pow(o.beta2, n);
      it->second = {scalar(1 - lr_ * o.weight_decay, t),
                    scalar(o.beta1, t),
                    scalar(1 - o.beta1, t),
                    scalar(o.beta2, t),
                    scalar(1 - o.beta2, t),
                    scalar(std::sqrt(bc2), t),
                    scalar(o.eps, t),
                    scalar(-(lr_ / bc1), t)};
    }
    return it->second;
  };
  for (size_t i : which) {
    Tensor& p = params_[i].second;
    ParamState& st = state_[i];
    const Scalars& s = scalars_for(p.dtype(), st.step);
    if (st.tensors.empty()) {
      for (size_t k = 0; k < state_names().size(); ++k)
        st.tensors.emplace_back(Literal::zeros({p.dtype(), p.shape()}));
    }
    Tensor g = grad_of(i);
    if (o.maximize) g = -g;
    Tensor decayed = p * s.decay;
    Tensor m = st.tensors[0] * s.beta1 + s.one_minus_beta1 * g;
    Tensor v = st.tensors[1] * s.beta2 + (s.one_minus_beta2 * g) * g;
    Tensor v_hat = v;
    if (o.amsgrad) {
      v_hat = maximum(st.tensors[2], v);
      st.tensors[2] = v_hat;
    }
    Tensor denom = sqrt(v_hat) / s.bc2_sqrt + s.eps;
    st.tensors[0] = m;
    st.tensors[1] = v;
    p.copy_(decayed + (s.neg_step_size * m) / denom);
  }
}

}  // namespace lazax::optim
