// Indexing (src/api/ops_index.cc): index_select, gather, scatter_add, index_put and the
// TensorIndex entries of Tensor::index and Tensor::index_put_.
// Included by lazax/api/tensor.h (and lazax/lazax.h); part of the Tensor API.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

// ---- indexing (torch names; gradients flow to x and src/values) ----
// Index tensors are i64 (lazax also takes i32). A materialized index is checked when the op is
// recorded: a value out of range is a ValueError. A pending one is not read (that would be a
// graph break): an out-of-range entry then gathers NaN (the minimum for signed integers), and
// scatters nothing.
// x's entries at `index` (a vector) along dim: torch.index_select. (A 0-d x takes a one-element
// index only; PyTorch takes any and gives a 0-d result.)
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// out[i][j] = x[index[i][j]][j] (dim 0), out's shape index's: torch.gather.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// Out of place torch.scatter_add: x with src[i][j] added at [index[i][j]][j] (dim 0). src has
// x's dtype; bool adds as logical or.
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// torch.index_put: x with values (broadcast to the indexed shape) at the positions the integer
// tensors `indices` (broadcast together; one per leading dim, negative counting from the end)
// address; with accumulate, added there. values has x's dtype. Repeated positions without
// accumulate are undefined in PyTorch; lazax writes their sum.
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate = false);

// The entries of Tensor::index and Tensor::index_put_, as LibTorch's torch::indexing:
// `using namespace lazax::indexing;` then x.index({Slice(None, 4), 2, None, Ellipsis}).
namespace indexing {
inline constexpr std::nullopt_t None = std::nullopt;
struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis{};
// Python's start:stop:step (step > 0); a None end is the dim's end.
struct Slice {
  Slice(std::optional<int64_t> start_ = std::nullopt, std::optional<int64_t> stop_ = std::nullopt,
        std::optional<int64_t> step_ = std::nullopt)
      : start(start_), stop(stop_), step(step_.value_or(1)) {}
  std::optional<int64_t> start, stop;
  int64_t step;
};
struct TensorIndex {
  enum class Kind : uint8_t { integer, slice, none, ellipsis, tensor };
  TensorIndex(std::nullopt_t) : kind(Kind::none) {}
  TensorIndex(EllipsisIndexType) : kind(Kind::ellipsis) {}
  TensorIndex(Slice s) : kind(Kind::slice), slice(s) {}
  TensorIndex(Tensor t) : kind(Kind::tensor), tensor(std::move(t)) {}
  template <IntegerScalar I>
  TensorIndex(I i) : kind(Kind::integer), integer(static_cast<int64_t>(i)) {}
  Kind kind;
  int64_t integer = 0;
  Slice slice;
  Tensor tensor;
};
}  // namespace indexing

}  // namespace lazax
