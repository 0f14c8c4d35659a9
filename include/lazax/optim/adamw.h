// Adam with decoupled weight decay: torch.optim.AdamW's update (defaults and order of operations
// of its single-tensor implementation), for a parameter's t-th step:
//   p = p * (1 - lr * weight_decay)
//   m = beta1 * m + (1 - beta1) * g,   v = beta2 * v + (1 - beta2) * g * g
//   v_hat = max(v_hat, v) with amsgrad, else v
//   p = p - (lr / (1 - beta1^t)) * m / (sqrt(v_hat) / sqrt(1 - beta2^t) + eps)
// The bias corrections are computed on the host in double, as PyTorch does, and enter the
// program as data (they change every step).
#pragma once
#include "lazax/optim/optimizer.h"

namespace lazax::optim {

struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;
};

class AdamW : public Optimizer {
 public:
  // Throws ValueError, as PyTorch, for lr < 0, eps < 0, betas outside [0, 1), weight_decay < 0,
  // and for bad parameters (see SGD).
  AdamW(NamedTensors params, AdamWOptions options = {});
  const AdamWOptions& options() const { return options_; }

 protected:
  std::vector<std::string> state_names() const override;
  void update(const std::vector<size_t>& which) override;

 private:
  AdamWOptions options_;
};

}  // namespace lazax::optim
