// Shape rules of data-movement ops: broadcast_in_dim, reshape, transpose, slice, dynamic_slice,
// dynamic_update_slice, concatenate, pad (lax semantics).
#include "common.h"

namespace lazax::shape_rules {
using namespace detail;

namespace {

int64_t rank_of(const TensorType& t) { return static_cast<int64_t>(t.shape.rank()); }

// dynamic_slice / dynamic_update_slice take one i32 or i64 scalar start per operand dimension.
void check_starts(OpCode op, std::span<const TensorType> starts, const TensorType& operand) {
  if (static_cast<int64_t>(starts.size()) != rank_of(operand)) {
    shape_fail(op, "needs one start index per dimension of " + operand.str() + " (" +
                       num(rank_of(operand)) + "), got " +
                       num(static_cast<int64_t>(starts.size())) + " (" + types_str(starts) + ")");
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    if (!is_int_scalar(starts[i])) {
      dtype_fail(op, "start index " + num(static_cast<int64_t>(i)) +
                         " must be an i32 or i64 scalar, got " + starts[i].str() + " (operand " +
                         operand.str() + ")");
    }
  }
}

}  // namespace

void broadcast_in_dim(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                      std::vector<TensorType>& out) {
  const auto& a = std::get<BroadcastInDimAttrs>(attrs);
  const TensorType& x = in[0];
  TensorType result{x.dtype, a.shape};
  checked_numel(op, a.shape, "target shape");
  const auto ctx = [&] { return x.str() + " -> " + result.str(); };
  check_len(op, a.broadcast_dimensions.size(), x.shape.rank(), "broadcast_dimensions",
            [&] { return ctx() + " (one entry per operand dimension)"; });
  check_axes(op, a.broadcast_dimensions, static_cast<int64_t>(a.shape.rank()),
             "broadcast_dimensions", ctx, /*sorted=*/true);
  for (size_t i = 0; i < x.shape.rank(); ++i) {
    int64_t target = a.shape[static_cast<size_t>(a.broadcast_dimensions[i])];
    if (x.shape[i] != 1 && x.shape[i] != target) {
      shape_fail(op, "operand dimension " + num(static_cast<int64_t>(i)) + " of " + x.str() +
                         " has size " + num(x.shape[i]) + " but target dimension " +
                         num(a.broadcast_dimensions[i]) + " of " + result.str() + " has size " +
                         num(target) + "; operand sizes must be 1 or equal the target's");
    }
  }
  out = {result};
}

void reshape(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
             std::vector<TensorType>& out) {
  const auto& a = std::get<ReshapeAttrs>(attrs);
  const TensorType& x = in[0];
  TensorType result{x.dtype, a.new_sizes};
  for (int64_t d : a.new_sizes) {
    if (d < 0) {
      shape_fail(op, "new_sizes " + a.new_sizes.str() + " for " + x.str() +
                         " has a negative size; give every size explicitly (no -1)");
    }
  }
  int64_t n = checked_numel(op, a.new_sizes, "new_sizes");
  if (n != checked_numel(op, x.shape, "operand shape")) {
    shape_fail(op, "cannot reshape " + x.str() + " (" + num(x.numel()) + " elements) to " +
                       a.new_sizes.str() + " (" + num(n) +
                       " elements); sizes must have the same product");
  }
  out = {result};
}

void transpose(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
               std::vector<TensorType>& out) {
  const auto& a = std::get<TransposeAttrs>(attrs);
  const TensorType& x = in[0];
  const auto ctx = [&] { return x.str() + " (permutation must list each of its dimensions once)"; };
  check_len(op, a.permutation.size(), x.shape.rank(), "permutation", ctx);
  check_axes(op, a.permutation, rank_of(x), "permutation", ctx);
  Shape s;
  for (int64_t p : a.permutation) s.dims().push_back(x.shape[static_cast<size_t>(p)]);
  out = {TensorType{x.dtype, s}};
}

void slice(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
           std::vector<TensorType>& out) {
  const auto& a = std::get<SliceAttrs>(attrs);
  const TensorType& x = in[0];
  const size_t r = x.shape.rank();
  const auto ctx = [&] { return x.str() + " (one entry per dimension)"; };
  check_len(op, a.start_indices.size(), r, "start_indices", ctx);
  check_len(op, a.limit_indices.size(), r, "limit_indices", ctx);
  if (!a.strides.empty()) {
    check_len(op, a.strides.size(), r, "strides", [&] { return ctx() + ", or empty"; });
  }
  Shape s;
  for (size_t i = 0; i < r; ++i) {
    int64_t lo = a.start_indices[i], hi = a.limit_indices[i];
    int64_t st = a.strides.empty() ? 1 : a.strides[i];
    if (lo < 0 || hi < lo || hi > x.shape[i]) {
      shape_fail(op, "dimension " + num(static_cast<int64_t>(i)) + " of " + x.str() +
                         ": need 0 <= start <= limit <= " + num(x.shape[i]) + ", got start " +
                         num(lo) + " and limit " + num(hi));
    }
    if (st < 1) {
      shape_fail(op, "strides " + list_str(a.strides) + " for " + x.str() + " must all be >= 1");
    }
    s.dims().push_back(hi == lo ? 0 : (hi - lo - 1) / st + 1);
  }
  out = {TensorType{x.dtype, s}};
}

void dynamic_slice(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                   std::vector<TensorType>& out) {
  const auto& a = std::get<DynamicSliceAttrs>(attrs);
  if (in.empty()) shape_fail(op, "needs an operand and one start index per dimension, got none");
  const TensorType& x = in[0];
  check_starts(op, in.subspan(1), x);
  check_len(op, a.slice_sizes.size(), x.shape.rank(), "slice_sizes",
            [&] { return x.str() + " (one entry per dimension)"; });
  for (size_t i = 0; i < a.slice_sizes.size(); ++i) {
    if (a.slice_sizes[i] < 0 || a.slice_sizes[i] > x.shape[i]) {
      shape_fail(op, "slice_sizes " + list_str(a.slice_sizes) + " do not fit in " + x.str() +
                         "; each size must be in [0, dimension size]");
    }
  }
  out = {TensorType{x.dtype, Shape(a.slice_sizes)}};
}

void dynamic_update_slice(OpCode op, std::span<const TensorType> in, const Attrs&,
                          std::vector<TensorType>& out) {
  if (in.size() < 2) {
    shape_fail(
        op, "needs an operand, an update and one start index per dimension, got " + types_str(in));
  }
  const TensorType& x = in[0];
  const TensorType& u = in[1];
  if (u.shape.rank() != x.shape.rank()) {
    shape_fail(op, "update " + u.str() + " must have the rank of operand " + x.str());
  }
  for (size_t i = 0; i < x.shape.rank(); ++i) {
    if (u.shape[i] > x.shape[i]) {
      shape_fail(op, "update " + u.str() + " does not fit in operand " + x.str() + " (dimension " +
                         num(static_cast<int64_t>(i)) + ")");
    }
  }
  if (u.dtype != x.dtype) {
    dtype_fail(op, "update " + u.str() + " must have the dtype of operand " + x.str() +
                       "; convert it first");
  }
  check_starts(op, in.subspan(2), x);
  out = {x};
}

void concatenate(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out) {
  const auto& a = std::get<ConcatenateAttrs>(attrs);
  if (in.empty()) shape_fail(op, "needs at least one operand");
  const TensorType& x = in[0];
  check_axis(op, a.dimension, x, "dimension");
  const auto d = static_cast<size_t>(a.dimension);
  Shape s = x.shape;
  for (size_t k = 1; k < in.size(); ++k) {
    const TensorType& y = in[k];
    if (y.dtype != x.dtype) {
      dtype_fail(
          op, "operands must have the same dtype, got " + types_str(in) + "; convert them first");
    }
    bool fits = y.shape.rank() == x.shape.rank();
    for (size_t i = 0; fits && i < x.shape.rank(); ++i) fits = i == d || y.shape[i] == x.shape[i];
    if (!fits) {
      shape_fail(op, "operands must have the same shape except in dimension " + num(a.dimension) +
                         ", got " + types_str(in));
    }
    s[d] = checked_add(op, s[d], y.shape[d]);
  }
  out = {TensorType{x.dtype, s}};
}

void pad(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
         std::vector<TensorType>& out) {
  const auto& a = std::get<PadAttrs>(attrs);
  const TensorType& x = in[0];
  const TensorType& v = in[1];
  if (v.shape.rank() != 0) {
    shape_fail(op, "padding value must be a scalar, got " + v.str() + " for operand " + x.str());
  }
  if (v.dtype != x.dtype) {
    dtype_fail(op, "padding value " + v.str() + " must have the dtype of operand " + x.str());
  }
  const auto ctx = [&] { return x.str() + " (one entry per dimension)"; };
  const size_t r = x.shape.rank();
  check_len(op, a.edge_padding_low.size(), r, "edge_padding_low", ctx);
  check_len(op, a.edge_padding_high.size(), r, "edge_padding_high", ctx);
  check_len(op, a.interior_padding.size(), r, "interior_padding", ctx);
  Shape s;
  for (size_t i = 0; i < r; ++i) {
    if (a.interior_padding[i] < 0) {
      shape_fail(op, "interior_padding " + list_str(a.interior_padding) + " for " + x.str() +
                         " must be >= 0");
    }
    int64_t d = x.shape[i];
    int64_t n =
        checked_add(op, d, checked_mul(op, std::max<int64_t>(d - 1, 0), a.interior_padding[i]));
    n = checked_add(op, n, a.edge_padding_low[i]);
    n = checked_add(op, n, a.edge_padding_high[i]);
    if (n < 0) {
      shape_fail(op, "padding low " + list_str(a.edge_padding_low) + ", high " +
                         list_str(a.edge_padding_high) + " makes dimension " +
                         num(static_cast<int64_t>(i)) + " of " + x.str() + " negative (" + num(n) +
                         ")");
    }
    s.dims().push_back(n);
  }
  out = {TensorType{x.dtype, s}};
}

}  // namespace lazax::shape_rules
