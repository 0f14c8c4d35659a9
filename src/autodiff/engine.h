// The autodiff engine: walks the tape backwards applying VJP rules (reverse mode) or forwards
// applying JVP rules (forward mode). Tape autograd and the functional transforms both use it.
#pragma once
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax::autodiff {

struct BackwardOptions {
  // Add the gradients of leaves that require grad to their grad() (Tensor::backward).
  bool accumulate_leaves = false;
  // Keep the tape's saved values (else each entry's are freed once its rule ran).
  bool retain_graph = false;
  // Record the backward on the tape too (higher-order derivatives).
  bool create_graph = false;
};

// Cotangents of `targets` given cotangents `cts` of `roots` (undefined ct = ones for a scalar
// root). Targets are leaves or tensors with a tape entry; the walk stops at them.
std::vector<Tensor> run_backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& cts,
                                 const std::vector<Tensor>& targets,
                                 const BackwardOptions& options);

// Whether the backward running now frees each tape entry after applying its rule
// (retain_graph=false): a custom rule may then move its saved values out instead of copying.
bool saved_values_released_after_rule();

// Tangents of `outputs` given tangents of `inputs` (which must be targets as above).
std::vector<Tensor> run_forward(const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& tangents,
                                const std::vector<Tensor>& outputs);

// A fresh handle of `p` for a transform: a leaf that requires grad when p does not, or an
// identity tape entry on top of p when it does (so an enclosing transform still sees through).
Tensor transform_input(const Tensor& p);

// Zeros of the type of `like`.
Tensor zeros_of(const TensorType& like);

}  // namespace lazax::autodiff
