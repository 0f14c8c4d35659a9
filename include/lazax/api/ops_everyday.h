// Everyday composites (src/api/ops_everyday.cc): var, std, linspace, eye, tril, one_hot...
// Included by lazax/api/tensor.h (and lazax/lazax.h); part of the Tensor API.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

// ---- everyday composites ----
// steps values from start to end inclusive (torch.linspace).
Tensor linspace(double start, double end, int64_t steps, DType dtype = DType::f32);
Tensor eye(int64_t n, int64_t m = -1, DType dtype = DType::f32);  // m = -1: square
// x with the entries above (tril) or below (triu) the diagonal-th diagonal of the last two dims
// zeroed: torch.tril, torch.triu.
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
// i64 [..., num_classes]: torch.nn.functional.one_hot. num_classes = -1 takes the largest value
// + 1, which needs a materialized tensor (a pending one is an error: pass num_classes).
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);
// torch.nn.functional.layer_norm over the last normalized_shape.size() dims (biased variance);
// weight and bias may be undefined (Tensor()). nn::LayerNorm is the module form.
Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);
// torch.nn.functional.dropout: zeroes entries with probability p (drawn from
// default_generator()) and scales the rest by 1 / (1 - p); with train = false, a copy of x.
Tensor dropout(const Tensor& x, double p = 0.5, bool train = true);
Tensor max(const Tensor& x);  // torch.max(x): the maximum of every element (x not empty)
Tensor min(const Tensor& x);  // torch.min(x): the minimum of every element (x not empty)
Tensor min(const Tensor& x, int64_t dim, bool keepdim = false);  // values only
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim = false);
// Whether every (any) element is non-zero: bool, or u8 for a u8 operand (as torch).
Tensor all(const Tensor& x);
Tensor all(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& x);
Tensor any(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor cumprod(const Tensor& x, int64_t dim);
// The running maximum (minimum) and the index where it was reached (the last of equal values,
// the last NaN once one was seen: as torch).
std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);

}  // namespace lazax
