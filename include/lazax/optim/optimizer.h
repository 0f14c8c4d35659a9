// Optimizers over named parameters (torch.optim's semantics): the base class shared by SGD and
// AdamW (lazax/optim/sgd.h, adamw.h). step() records the update of every parameter that has a
// gradient as lazy ops under NoGrad, so that the next sync compiles forward, backward and update
// as one program. Every per-step number (the learning rate, AdamW's bias corrections) enters as a
// scalar data tensor, never as a constant: a learning rate that changes every step reuses the
// compiled program.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax::optim {

// Parameters (or any tensors) by name, in order: what nn::Module::named_parameters() gives.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
// Names the tensors "0", "1", ... (for parameters that have no names of their own).
NamedTensors numbered(const std::vector<Tensor>& tensors);

// An optimizer's state, flattened to named tensors (torch.optim's state_dict): for each parameter
// that has state, "<param>.<state>" (e.g. "w.exp_avg") and "<param>.step" (an i64 scalar: the
// steps that parameter took), plus the optimizer's kind, learning rate and step count.
struct OptimizerState {
  std::string kind;  // "sgd", "adamw"
  double lr = 0;
  int64_t step = 0;
  NamedTensors tensors;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Records one update of every parameter whose grad() is defined (the others are skipped, as in
  // PyTorch, and keep their state). Lazy: nothing runs until the next sync.
  void step();
  // Sets every parameter's grad to undefined (PyTorch's set_to_none=True).
  void zero_grad();

  double lr() const { return lr_; }
  // Changes the learning rate from the next step on (no recompilation: it is a data input).
  void set_lr(double lr);
  // Number of step() calls so far (restored by load_state_dict).
  int64_t step_count() const { return step_; }
  const std::string& kind() const { return kind_; }
  const NamedTensors& params() const { return params_; }

  OptimizerState state_dict() const;
  // Restores a state_dict() of an optimizer of the same kind over parameters of the same names,
  // dtypes and shapes. Strict: an entry that names no parameter or state, a wrongly typed entry,
  // a parameter with only part of its state, or another kind is a ValueError naming it, and
  // then nothing changes.
  void load_state_dict(const OptimizerState& state);
  // The checks of load_state_dict alone (throws as it does; changes nothing).
  void check_state_dict(const OptimizerState& state) const;

 protected:
  struct ParamState {
    int64_t step = 0;             // steps this parameter took
    std::vector<Tensor> tensors;  // in state_names() order; empty until its first step
  };
  Optimizer(NamedTensors params, double lr, std::string kind);
  // The names of the per-parameter state tensors, in order ("exp_avg", "exp_avg_sq").
  virtual std::vector<std::string> state_names() const = 0;
  // Records the update of the parameters `which` (each with a defined grad), under NoGrad.
  // state_[i].step has been incremented already; state_[i].tensors is empty on a first step.
  virtual void update(const std::vector<size_t>& which) = 0;
  // A scalar data tensor of `dtype` holding `v` (a graph input, whatever its value: unlike
  // host scalars, 0 and 1 do not become constants, so the program does not depend on them).
  static Tensor scalar(double v, DType dtype);
  // The gradient of parameter i in the parameter's dtype.
  Tensor grad_of(size_t i) const;

  NamedTensors params_;
  std::vector<ParamState> state_;
  double lr_;
  int64_t step_ = 0;

 private:
  std::string kind_;
};

}  // namespace lazax::optim
