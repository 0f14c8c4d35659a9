// The optimizer step of `lazax train`: AdamW or SGD over the model's parameters with PyTorch's
// semantics, gradient clipping by global norm, as one lazy graph per step whose changing
// scalars (learning rate, bias corrections, clip) are tensor inputs, so that it compiles once.
// A stand-in until h-optim's optim::AdamW/SGD land; its state round-trips through checkpoints.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax::cli {

struct OptimConfig {
  std::string kind = "adamw";  // or "sgd"
  double weight_decay = 0.01;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double momentum = 0.9;  // sgd
  double clip = 0;        // global-norm clipping; 0: off
};

class TrainOptimizer {
 public:
  TrainOptimizer(std::vector<std::pair<std::string, Tensor>> params, OptimConfig config);
  // Records the update from the parameters' grad(); returns the global gradient norm (before
  // clipping) as a pending scalar. Steps count from 1.
  Tensor step(double lr);
  int64_t steps() const { return step_; }
  // The state (per-parameter tensors under "optim.<buffer>.<param name>") and its step count.
  std::vector<std::pair<std::string, Tensor>> state() const;
  void load_state(const std::vector<std::pair<std::string, Literal>>& named, int64_t step);

 private:
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<Tensor> m_, v_;  // AdamW moments, or m_ the SGD momentum buffer
  OptimConfig config_;
  int64_t step_ = 0;
};

}  // namespace lazax::cli
