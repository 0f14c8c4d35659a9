// Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay:
// torch.optim.SGD's update, step by step (its single-tensor implementation):
//   g = grad + weight_decay * p                        (when weight_decay != 0)
//   buf = g on a parameter's first step, else momentum * buf + (1 - dampening) * g
//   g = g + momentum * buf (nesterov), or buf           (when momentum != 0)
//   p = p - lr * g
#pragma once
#include "lazax/optim/optimizer.h"

namespace lazax::optim {

struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;  // ascend: the gradient's sign is flipped first
};

class SGD : public Optimizer {
 public:
  // Throws ValueError, as PyTorch, for a negative lr, momentum or weight decay, and for nesterov
  // without momentum or with dampening; and for parameters that are undefined, not floating,
  // repeated, or have empty or repeated names.
  SGD(NamedTensors params, SGDOptions options);
  const SGDOptions& options() const { return options_; }

 protected:
  std::vector<std::string> state_names() const override;
  void update(const std::vector<size_t>& which) override;

 private:
  SGDOptions options_;
};

}  // namespace lazax::optim
