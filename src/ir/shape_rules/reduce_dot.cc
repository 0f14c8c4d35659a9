// Shape rules of reductions (reduce_*, argmax/argmin, cumsum/cumprod/cummax/cummin), rev, sort
// and dot_general (lax semantics).
#include "common.h"

namespace lazax::shape_rules {
using namespace detail;

namespace {

int64_t rank_of(const TensorType& t) { return static_cast<int64_t>(t.shape.rank()); }

}  // namespace

void reduce(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
            std::vector<TensorType>& out) {
  const auto& a = std::get<ReduceAttrs>(attrs);
  const TensorType& x = in[0];
  if (x.dtype == DType::boolean && op != OpCode::reduce_max && op != OpCode::reduce_min) {
    dtype_fail(op, "does not accept bool operands, got " + x.str() +
                       "; convert to an integer dtype first (or use reduce_max as 'any')");
  }
  check_axes(op, a.axes, rank_of(x), "axes", [&] { return x.str(); });
  Shape s;
  for (size_t i = 0; i < x.shape.rank(); ++i) {
    if (!contains(a.axes, static_cast<int64_t>(i))) s.dims().push_back(x.shape[i]);
  }
  out = {TensorType{x.dtype, s}};
}

void argmax(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
            std::vector<TensorType>& out) {
  const auto& a = std::get<ArgmaxAttrs>(attrs);
  const TensorType& x = in[0];
  check_axis(op, a.axis, x, "axis");
  if (a.index_dtype != DType::i32 && a.index_dtype != DType::i64) {
    dtype_fail(op, "index_dtype must be i32 or i64, got " + dt(a.index_dtype) + " (operand " +
                       x.str() + ")");
  }
  if (x.shape[static_cast<size_t>(a.axis)] < 1) {
    shape_fail(op, "axis " + num(a.axis) + " of " + x.str() + " is empty; " +
                       std::string(op_name(op)) + " needs at least one element to pick");
  }
  Shape s;
  for (size_t i = 0; i < x.shape.rank(); ++i) {
    if (static_cast<int64_t>(i) != a.axis) s.dims().push_back(x.shape[i]);
  }
  out = {TensorType{a.index_dtype, s}};
}

void cumsum(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
            std::vector<TensorType>& out) {
  const auto& a = std::get<CumsumAttrs>(attrs);
  const TensorType& x = in[0];
  check_axis(op, a.axis, x, "axis");
  if (x.dtype == DType::boolean) {
    dtype_fail(op, "does not accept bool operands, got " + x.str() +
                       "; convert to an integer dtype first");
  }
  out = {x};
}

// cummax/cummin: the running extreme and the index (i64) where it was reached.
void cummax(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
            std::vector<TensorType>& out) {
  const auto& a = std::get<CumsumAttrs>(attrs);
  const TensorType& x = in[0];
  check_axis(op, a.axis, x, "axis");
  out = {x, TensorType{DType::i64, x.shape}};
}

void rev(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
         std::vector<TensorType>& out) {
  const auto& a = std::get<RevAttrs>(attrs);
  const TensorType& x = in[0];
  check_axes(op, a.dimensions, rank_of(x), "dimensions", [&] { return x.str(); });
  out = {x};
}

void sort(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
          std::vector<TensorType>& out) {
  const auto& a = std::get<SortAttrs>(attrs);
  const TensorType& x = in[0];
  check_axis(op, a.axis, x, "axis");
  out = {x, TensorType{DType::i64, x.shape}};
}

// reduce_and/reduce_or: bool operands only (reduce_max/min take the other dtypes).
void reduce_bool(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out) {
  const TensorType& x = in[0];
  if (x.dtype != DType::boolean) {
    dtype_fail(op, "needs a bool operand, got " + x.str() +
                       "; compare first (e.g. ne against 0), or use reduce_max/reduce_min");
  }
  const auto& a = std::get<ReduceAttrs>(attrs);
  check_axes(op, a.axes, rank_of(x), "axes", [&] { return x.str(); });
  Shape s;
  for (size_t i = 0; i < x.shape.rank(); ++i) {
    if (!contains(a.axes, static_cast<int64_t>(i))) s.dims().push_back(x.shape[i]);
  }
  out = {TensorType{x.dtype, s}};
}

void dot_general(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out) {
  const auto& a = std::get<DotGeneralAttrs>(attrs);
  const TensorType& l = in[0];
  const TensorType& r = in[1];
  const auto ctx = [&] { return l.str() + " x " + r.str(); };
  if (l.dtype != r.dtype) {
    dtype_fail(op, "operands must have the same dtype, got " + ctx() + "; convert one first");
  }
  if (l.dtype == DType::boolean) {
    dtype_fail(op, "does not accept bool operands, got " + ctx() + "; convert them first");
  }
  check_len(op, a.rhs_batch.size(), a.lhs_batch.size(), "rhs_batch",
            [&] { return ctx() + " (as many as lhs_batch " + list_str(a.lhs_batch) + ")"; });
  check_len(op, a.rhs_contracting.size(), a.lhs_contracting.size(), "rhs_contracting", [&] {
    return ctx() + " (as many as lhs_contracting " + list_str(a.lhs_contracting) + ")";
  });
  // Batch and contracting dims together must be distinct dims of each side.
  IntList lhs_used = a.lhs_batch, rhs_used = a.rhs_batch;
  lhs_used.insert(lhs_used.end(), a.lhs_contracting.begin(), a.lhs_contracting.end());
  rhs_used.insert(rhs_used.end(), a.rhs_contracting.begin(), a.rhs_contracting.end());
  check_axes(op, lhs_used, rank_of(l), "lhs batch+contracting dims",
             [&] { return "lhs " + l.str(); });
  check_axes(op, rhs_used, rank_of(r), "rhs batch+contracting dims",
             [&] { return "rhs " + r.str(); });
  for (size_t i = 0; i < lhs_used.size(); ++i) {
    int64_t ls = l.shape[static_cast<size_t>(lhs_used[i])];
    int64_t rs = r.shape[static_cast<size_t>(rhs_used[i])];
    if (ls != rs) {
      const bool batch = i < a.lhs_batch.size();
      shape_fail(op, std::string(batch ? "batch" : "contracting") +
                         " dimension sizes differ: lhs dimension " + num(lhs_used[i]) + " of " +
                         l.str() + " has " + num(ls) + ", rhs dimension " + num(rhs_used[i]) +
                         " of " + r.str() + " has " + num(rs));
    }
  }
  Shape s;
  for (int64_t d : a.lhs_batch) s.dims().push_back(l.shape[static_cast<size_t>(d)]);
  for (size_t i = 0; i < l.shape.rank(); ++i) {
    if (!contains(lhs_used, static_cast<int64_t>(i))) s.dims().push_back(l.shape[i]);
  }
  for (size_t i = 0; i < r.shape.rank(); ++i) {
    if (!contains(rhs_used, static_cast<int64_t>(i))) s.dims().push_back(r.shape[i]);
  }
  out = {TensorType{l.dtype, s}};
}

}  // namespace lazax::shape_rules
