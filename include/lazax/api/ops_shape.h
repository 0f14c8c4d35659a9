// Shape ops and matmul (src/api/ops_shape.cc).
// Included by lazax/api/tensor.h (and lazax/lazax.h); part of the Tensor API.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

// ---- shape ops ----
Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape);  // one -1 allowed
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1);
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
Tensor unsqueeze(const Tensor& x, int64_t d);
Tensor squeeze(const Tensor& x, int64_t d);
Tensor expand(const Tensor& x, const std::vector<int64_t>& shape);  // -1 keeps a dim
Tensor broadcast_to(const Tensor& x, const std::vector<int64_t>& shape);
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& xs, int64_t dim = 0);
Tensor matmul(const Tensor& a, const Tensor& b);  // PyTorch matmul with batch broadcasting
Tensor tril_mask(int64_t n, int64_t m);           // bool [n, m]: j <= i (causal mask)

}  // namespace lazax
