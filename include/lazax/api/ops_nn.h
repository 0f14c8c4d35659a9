// Neural-network composites (src/api/ops_nn.cc): activations, softmax, losses, embedding.
// Included by lazax/api/tensor.h (and lazax/lazax.h); part of the Tensor API.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

// ---- activations and composites ----
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x, bool tanh_approximation = false);
Tensor silu(const Tensor& x);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor logsumexp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
// Mean cross entropy of logits [N, C] and integer class targets [N] (PyTorch's reduction='mean').
Tensor cross_entropy(const Tensor& logits, const Tensor& targets);
// Rows of `weight` [V, D] picked by integer `ids` (any shape): result ids.shape + [D].
Tensor embedding(const Tensor& weight, const Tensor& ids);

}  // namespace lazax
