// Sorting and reversal (PyTorch names): sort, argsort and topk on the sort primitive, flip on rev.
#include <algorithm>
#include <string>

#include "lazax/api/tensor_impl.h"

namespace lazax {

std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  operand(x, "sort");
  const int64_t d = norm_dim(dim, x.dim(), "sort");
  if (x.dim() == 0) return {x.reshape({}), zeros({}, DType::i64)};
  std::vector<Tensor> r = record_op(OpCode::sort, {&x}, SortAttrs{d, descending});
  return {r[0], r[1]};
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending) {
  return std::get<1>(sort(x, dim, descending));
}

std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest) {
  operand(x, "topk");
  const int64_t d = norm_dim(dim, x.dim(), "topk");
  const int64_t n = x.dim() == 0 ? 1 : x.shape()[static_cast<size_t>(d)];
  if (k < 0 || k > n) {
    throw ValueError("[topk] k=" + std::to_string(k) + " is out of range for dimension " +
                     std::to_string(d) + " of " + x.type_str() + "; use k in [0, " +
                     std::to_string(n) + "]");
  }
  auto [values, indices] = sort(x, d, largest);
  if (x.dim() == 0) return {values, indices};
  return {values.slice(d, 0, k), indices.slice(d, 0, k)};
}

Tensor flip(const Tensor& x, const std::vector<int64_t>& dims) {
  operand(x, "flip");
  IntList axes;
  for (int64_t d : dims) {
    const int64_t n = norm_dim(d, x.dim(), "flip");
    if (std::find(axes.begin(), axes.end(), n) != axes.end())
      throw ValueError("[flip] dim " + std::to_string(n) + " appears more than once in " +
                       vec_str(dims) + " (tensor " + x.type_str() + "); list each dim once");
    axes.push_back(n);
  }
  if (x.dim() == 0 || axes.empty()) return x.reshape(x.sizes());  // nothing to reverse
  std::sort(axes.begin(), axes.end());
  return record_op(OpCode::rev, {&x}, RevAttrs{axes});
}

}  // namespace lazax
