// Sorting and reversal (src/api/ops_sort.cc): sort, argsort, topk, flip.
// Included by lazax/api/tensor.h (and lazax/lazax.h); part of the Tensor API.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

// ---- sorting ----
// Always stable (torch.sort(stable=True)); NaN sorts as the largest value. Values and i64
// indices.
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false);
// The k largest (smallest) along dim, sorted; equal values in index order (torch leaves their
// order unspecified).
std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true);
Tensor flip(const Tensor& x, const std::vector<int64_t>& dims);

}  // namespace lazax
