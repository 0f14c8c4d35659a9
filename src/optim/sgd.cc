// SGD: torch.optim.SGD's single-tensor update, with the first-step momentum buffer (buf = g)
// written as buf * 0 + g * 1 on a zero buffer, so that the first step records the same program
// as the later ones and only the scalar inputs differ.
#include "lazax/optim/sgd.h"

#include <map>

#include "lazax/core/error.h"

namespace lazax::optim {

SGD::SGD(NamedTensors params, SGDOptions o)
    : Optimizer(std::move(params), o.lr, "sgd"), options_(o) {
  auto bad = [](const std::string& what) { throw ValueError("[sgd] " + what); };
  if (!(o.momentum >= 0))
    bad("invalid momentum " + std::to_string(o.momentum) + "; it must be >= 0");
  if (!(o.weight_decay >= 0))
    bad("invalid weight_decay " + std::to_string(o.weight_decay) + "; it must be >= 0");
  if (o.nesterov && (o.momentum <= 0 || o.dampening != 0))
    bad("nesterov momentum needs momentum > 0 and dampening 0 (as PyTorch)");
}

std::vector<std::string> SGD::state_names() const {
  if (options_.momentum == 0) return {};
  return {"momentum_buffer"};
}

void SGD::update(const std::vector<size_t>& which) {
  const SGDOptions& o = options_;
  // The step's scalar inputs, one set per dtype (and per first step or not, for the buffer).
  struct Scalars {
    Tensor neg_lr, weight_decay, momentum, buf_keep, grad_keep;
  };
  std::map<std::pair<DType, bool>, Scalars> scalars;
  auto scalars_for = [&](DType t, bool first) -> const Scalars& {
    auto [it, fresh] = scalars.try_emplace({t, first});
    if (fresh) {
      it->second = {scalar(-lr_, t), scalar(o.weight_decay, t), scalar(o.momentum, t),
                    scalar(first ? 0.0 : o.momentum, t),
                    scalar(first ? 1.0 : 1.0 - o.dampening, t)};
    }
    return it->second;
  };
  for (size_t i : which) {
    Tensor& p = params_[i].second;
    ParamState& st = state_[i];
    const bool first = st.tensors.empty();
    const Scalars& s = scalars_for(p.dtype(), first);
    Tensor g = grad_of(i);
    if (o.maximize) g = -g;
    if (o.weight_decay != 0) g = g + s.weight_decay * p;
    if (o.momentum != 0) {
      Tensor buf = first ? Tensor(Literal::zeros({p.dtype(), p.shape()})) : st.tensors[0];
      buf = buf * s.buf_keep + s.grad_keep * g;
      g = o.nesterov ? g + s.momentum * buf : buf;
      st.tensors = {buf};
    }
    p.copy_(p + s.neg_lr * g);
  }
}

}  // namespace lazax::optim
