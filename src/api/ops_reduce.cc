// Reductions (PyTorch names and result dtypes) written with the reduce_*, argmax/argmin and
// cumulative primitives. An empty dims list reduces over every dimension; keepdim is a reshape.
#include <algorithm>
#include <string>

#include "lazax/api/tensor_impl.h"

namespace lazax {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// The sorted, normalized axes of `dims` (empty: all). A 0-d tensor accepts 0 and -1 and has no
// axes to reduce, as in PyTorch.
IntList reduce_axes(const Tensor& x, const std::vector<int64_t>& dims, const char* op) {
  const int64_t r = x.dim();
  IntList axes;
  for (int64_t d : dims) {
    int64_t n = norm_dim(d, r, op);
    if (std::find(axes.begin(), axes.end(), n) != axes.end())
      throw ValueError(std::string("[") + op + "] dim " + str(n) + " appears more than once in " +
                       vec_str(dims) + " (tensor " + x.type_str() + ")");
    axes.push_back(n);
  }
  if (dims.empty())
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  if (r == 0) axes.clear();
  std::sort(axes.begin(), axes.end());
  return axes;
}

// The shape of the result: reduced axes removed, or kept as size 1.
Shape reduced_shape(const Shape& s, const IntList& axes, bool keepdim) {
  Shape out;
  for (size_t i = 0; i < s.rank(); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (!reduced)
      out.dims().push_back(s[i]);
    else if (keepdim)
      out.dims().push_back(1);
  }
  return out;
}

Tensor keep(const Tensor& r, const Shape& target) {
  if (r.shape() == target) return r;
  return record_op(OpCode::reshape, {&r}, ReshapeAttrs{target});
}

// max/min have no identity a user would expect: reducing an empty axis is an error, as PyTorch.
void require_nonempty(const Tensor& x, const IntList& axes, const char* op) {
  for (int64_t a : axes) {
    if (x.shape()[static_cast<size_t>(a)] == 0)
      throw ValueError(std::string("[") + op + "] cannot reduce over dimension " + str(a) + " of " +
                       x.type_str() + ": it is empty and the result has no identity");
  }
}

Tensor reduce(OpCode op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
              const char* name) {
  operand(x, name);
  IntList axes = reduce_axes(x, dims, name);
  Shape target = reduced_shape(x.shape(), axes, keepdim);
  if (axes.empty()) return x.reshape(x.sizes());  // nothing to reduce: a new handle
  Tensor r = record_op(op, {&x}, ReduceAttrs{axes});
  return keep(r, target);
}

// PyTorch's sum/prod/cumsum dtype: bool and integers accumulate in i64, floats keep theirs.
Tensor widen_integers(const Tensor& x) { return is_floating(x.dtype()) ? x : x.to(DType::i64); }

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  operand(x, "sum");
  reduce_axes(x, dims, "sum");  // checks the dims before recording the widening
  return reduce(OpCode::reduce_sum, widen_integers(x), dims, keepdim, "sum");
}

Tensor prod(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  operand(x, "prod");
  reduce_axes(x, dims, "prod");  // checks the dims before recording the widening
  return reduce(OpCode::reduce_prod, widen_integers(x), dims, keepdim, "prod");
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  operand(x, "mean");
  if (!is_floating(x.dtype()))
    throw DTypeError("[mean] mean() needs a floating dtype, got " + x.type_str() +
                     "; convert first, e.g. x.to(DType::f32)");
  IntList axes = reduce_axes(x, dims, "mean");
  int64_t count = 1;
  for (int64_t a : axes) count *= x.shape()[static_cast<size_t>(a)];
  return sum(x, dims, keepdim) / static_cast<double>(count);
}

Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  operand(x, "amax");
  require_nonempty(x, reduce_axes(x, dims, "amax"), "amax");
  return reduce(OpCode::reduce_max, x, dims, keepdim, "amax");
}

Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  operand(x, "amin");
  require_nonempty(x, reduce_axes(x, dims, "amin"), "amin");
  return reduce(OpCode::reduce_min, x, dims, keepdim, "amin");
}

Tensor max(const Tensor& x, int64_t dim, bool keepdim) {
  operand(x, "max");
  require_nonempty(x, reduce_axes(x, {dim}, "max"), "max");
  return reduce(OpCode::reduce_max, x, {dim}, keepdim, "max");
}

namespace {
// argmax / argmin along `dim`: the index of the first extreme, i64.
Tensor arg_extreme(OpCode op, const Tensor& x, int64_t dim, bool keepdim, const char* name) {
  operand(x, name);
  IntList axes = reduce_axes(x, {dim}, name);
  require_nonempty(x, axes, name);
  if (axes.empty()) return zeros({}, DType::i64);  // a 0-d tensor: its only index
  Tensor r = record_op(op, {&x}, ArgmaxAttrs{axes[0], DType::i64});
  return keep(r, reduced_shape(x.shape(), axes, keepdim));
}
}  // namespace

Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  return arg_extreme(OpCode::argmax, x, dim, keepdim, "argmax");
}

Tensor max(const Tensor& x) {
  operand(x, "max");
  require_nonempty(x, reduce_axes(x, {}, "max"), "max");
  return reduce(OpCode::reduce_max, x, {}, false, "max");
}
Tensor min(const Tensor& x) {
  operand(x, "min");
  require_nonempty(x, reduce_axes(x, {}, "min"), "min");
  return reduce(OpCode::reduce_min, x, {}, false, "min");
}

Tensor min(const Tensor& x, int64_t dim, bool keepdim) {
  operand(x, "min");
  require_nonempty(x, reduce_axes(x, {dim}, "min"), "min");
  return reduce(OpCode::reduce_min, x, {dim}, keepdim, "min");
}

Tensor argmin(const Tensor& x, int64_t dim, bool keepdim) {
  return arg_extreme(OpCode::argmin, x, dim, keepdim, "argmin");
}

namespace {

// all/any: reduce_and/reduce_or of x != 0; the result is bool, or u8 for u8 (as torch).
Tensor all_any(OpCode op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
               const char* name) {
  operand(x, name);
  reduce_axes(x, dims, name);  // checks the dims before recording the comparison
  Tensor b = x.dtype() == DType::boolean ? x : x != 0.0;
  Tensor r = reduce(op, b, dims, keepdim, name);
  return x.dtype() == DType::u8 ? r.to(DType::u8) : r;
}

// cummax/cummin: values and i64 indices; a 0-d tensor is its own running extreme, at index 0.
std::tuple<Tensor, Tensor> running(OpCode op, const Tensor& x, int64_t dim, const char* name) {
  operand(x, name);
  const int64_t d = norm_dim(dim, x.dim(), name);
  if (x.dim() == 0) return {x.reshape({}), zeros({}, DType::i64)};
  std::vector<Tensor> r = record_op(op, {&x}, CumsumAttrs{d, false});
  return {r[0], r[1]};
}

}  // namespace

Tensor all(const Tensor& x) { return all_any(OpCode::reduce_and, x, {}, false, "all"); }
Tensor all(const Tensor& x, int64_t dim, bool keepdim) {
  return all_any(OpCode::reduce_and, x, {dim}, keepdim, "all");
}
Tensor any(const Tensor& x) { return all_any(OpCode::reduce_or, x, {}, false, "any"); }
Tensor any(const Tensor& x, int64_t dim, bool keepdim) {
  return all_any(OpCode::reduce_or, x, {dim}, keepdim, "any");
}

Tensor cumprod(const Tensor& x, int64_t dim) {
  operand(x, "cumprod");
  const int64_t d = norm_dim(dim, x.dim(), "cumprod");
  Tensor w = widen_integers(x);
  if (x.dim() == 0) return w.reshape({});
  return record_op(OpCode::cumprod, {&w}, CumsumAttrs{d, false});
}

std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) {
  return running(OpCode::cummax, x, dim, "cummax");
}
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) {
  return running(OpCode::cummin, x, dim, "cummin");
}

Tensor cumsum(const Tensor& x, int64_t dim) {
  operand(x, "cumsum");
  const int64_t d = norm_dim(dim, x.dim(), "cumsum");
  Tensor w = widen_integers(x);
  if (x.dim() == 0) return w.reshape({});
  return record_op(OpCode::cumsum, {&w}, CumsumAttrs{d, false});
}

Tensor Tensor::sum(const std::vector<int64_t>& d, bool k) const { return lazax::sum(*this, d, k); }
Tensor Tensor::mean(const std::vector<int64_t>& d, bool k) const {
  return lazax::mean(*this, d, k);
}
Tensor Tensor::max(int64_t d, bool k) const { return lazax::max(*this, d, k); }
Tensor Tensor::amax(const std::vector<int64_t>& d, bool k) const {
  return lazax::amax(*this, d, k);
}
Tensor Tensor::argmax(int64_t d, bool k) const { return lazax::argmax(*this, d, k); }

}  // namespace lazax
