// Gradient clipping by global norm: torch.nn.utils.clip_grad_norm_ (norm_type 2).
#pragma once
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/optim/optimizer.h"

namespace lazax::optim {

// Scales the gradients of `params` (those that have one) in place by
// min(1, max_norm / (total_norm + 1e-6)), total_norm the 2-norm of all of them together, and
// returns total_norm (a 0-d tensor of the first gradient's dtype; 0 when no parameter has a
// gradient). Lazy: no value is read, so it adds no graph break; max_norm is a data input
// (changing it does not recompile). ValueError for max_norm <= 0 or not finite.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm);
Tensor clip_grad_norm_(const NamedTensors& params, double max_norm);

}  // namespace lazax::optim
