// Reductions (src/api/ops_reduce.cc), PyTorch names and result dtypes.
// Included by lazax/api/tensor.h (and lazax/lazax.h); part of the Tensor API.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

// ---- reductions ----
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor amax(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor prod(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor max(const Tensor& x, int64_t dim, bool keepdim = false);  // values only
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor cumsum(const Tensor& x, int64_t dim);
// Variance over dims (every dim when empty) with Bessel's correction: sum((x - mean)^2) /
// max(0, N - correction), as torch.var (unbiased by default; correction=0 is the biased one).
// Floating tensors only.
Tensor var(const Tensor& x, const std::vector<int64_t>& dims = {}, double correction = 1,
           bool keepdim = false);
Tensor std(const Tensor& x, const std::vector<int64_t>& dims = {}, double correction = 1,
           bool keepdim = false);  // sqrt(var(...))

}  // namespace lazax
