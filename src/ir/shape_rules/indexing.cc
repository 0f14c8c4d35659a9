// Shape rules of gather and scatter_add (lax semantics, index vector in the last dimension of the
// indices) and random_bits.
#include "common.h"

namespace lazax::shape_rules {
using namespace detail;

namespace {

int64_t rank_of(const TensorType& t) { return static_cast<int64_t>(t.shape.rank()); }

// Indices: an integer array whose last dimension is the index vector, of length `index_len`.
// `ctx` is a callable returning the text that names the op's operands (built only on failure).
template <class Ctx>
void check_indices(OpCode op, const TensorType& idx, size_t index_len, const char* map_name,
                   const Ctx& ctx) {
  if (!is_integer(idx.dtype)) {
    dtype_fail(op, "indices must have an integer dtype, got " + idx.str() + " in " + ctx());
  }
  if (idx.shape.rank() == 0) {
    shape_fail(op, "indices must have rank >= 1 (the last dimension is the index vector), got " +
                       idx.str() + " in " + ctx() + "; reshape a scalar index to [1]");
  }
  if (idx.shape[idx.shape.rank() - 1] != static_cast<int64_t>(index_len)) {
    shape_fail(op, "the last dimension of indices " + idx.str() + " must equal the length of " +
                       map_name + " (" + num(static_cast<int64_t>(index_len)) + ") in " + ctx());
  }
}

}  // namespace

void gather(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
            std::vector<TensorType>& out) {
  const auto& a = std::get<GatherAttrs>(attrs);
  const TensorType& x = in[0];
  const TensorType& idx = in[1];
  const auto ctx = [&] { return "gather of " + x.str() + " at " + idx.str(); };
  const int64_t r = rank_of(x);
  check_indices(op, idx, a.start_index_map.size(), "start_index_map", ctx);
  check_axes(op, a.start_index_map, r, "start_index_map", ctx);
  check_len(op, a.slice_sizes.size(), x.shape.rank(), "slice_sizes",
            [&] { return ctx() + " (one entry per operand dimension)"; });
  for (size_t i = 0; i < a.slice_sizes.size(); ++i) {
    if (a.slice_sizes[i] < 0 || a.slice_sizes[i] > x.shape[i]) {
      shape_fail(op, "slice_sizes " + list_str(a.slice_sizes) + " do not fit in operand " +
                         x.str() + "; each must be in [0, dimension size]");
    }
  }
  check_axes(op, a.collapsed_slice_dims, r, "collapsed_slice_dims", ctx, /*sorted=*/true);
  for (int64_t c : a.collapsed_slice_dims) {
    if (a.slice_sizes[static_cast<size_t>(c)] != 1) {
      shape_fail(op, "collapsed dimension " + num(c) + " has slice size " +
                         num(a.slice_sizes[static_cast<size_t>(c)]) + " in " + ctx() +
                         "; only dimensions of slice size 1 can be collapsed");
    }
  }
  if (a.offset_dims.size() + a.collapsed_slice_dims.size() != x.shape.rank()) {
    shape_fail(op, "offset_dims " + list_str(a.offset_dims) + " and collapsed_slice_dims " +
                       list_str(a.collapsed_slice_dims) + " must together count the operand's " +
                       num(r) + " dimensions in " + ctx());
  }
  const int64_t batch_rank = rank_of(idx) - 1;
  const int64_t out_rank = batch_rank + static_cast<int64_t>(a.offset_dims.size());
  check_axes(
      op, a.offset_dims, out_rank, "offset_dims",
      [&] { return ctx() + " (result rank " + num(out_rank) + ")"; }, /*sorted=*/true);
  Shape s;
  size_t next_batch = 0, next_window = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (contains(a.offset_dims, i)) {
      while (contains(a.collapsed_slice_dims, static_cast<int64_t>(next_window))) ++next_window;
      s.dims().push_back(a.slice_sizes[next_window++]);
    } else {
      s.dims().push_back(idx.shape[next_batch++]);
    }
  }
  out = {TensorType{x.dtype, s}};
}

void scatter_add(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out) {
  const auto& a = std::get<ScatterAttrs>(attrs);
  const TensorType& x = in[0];
  const TensorType& idx = in[1];
  const TensorType& u = in[2];
  const auto ctx = [&] {
    return "scatter of " + u.str() + " into " + x.str() + " at " + idx.str();
  };
  const int64_t r = rank_of(x);
  if (u.dtype != x.dtype) {
    dtype_fail(op, "updates must have the operand's dtype in " + ctx() + "; convert them first");
  }
  if (x.dtype == DType::boolean) {
    dtype_fail(op, "does not accept bool operands in " + ctx() + "; convert to an integer dtype");
  }
  check_indices(op, idx, a.scatter_dims_to_operand_dims.size(), "scatter_dims_to_operand_dims",
                ctx);
  check_axes(op, a.scatter_dims_to_operand_dims, r, "scatter_dims_to_operand_dims", ctx);
  const int64_t batch_rank = rank_of(idx) - 1;
  if (rank_of(u) != batch_rank + static_cast<int64_t>(a.update_window_dims.size())) {
    shape_fail(op, "updates must have rank " +
                       num(batch_rank + static_cast<int64_t>(a.update_window_dims.size())) +
                       " (index batch dims + update_window_dims) in " + ctx());
  }
  check_axes(op, a.update_window_dims, rank_of(u), "update_window_dims", ctx, /*sorted=*/true);
  check_axes(op, a.inserted_window_dims, r, "inserted_window_dims", ctx, /*sorted=*/true);
  if (a.update_window_dims.size() + a.inserted_window_dims.size() != x.shape.rank()) {
    shape_fail(op, "update_window_dims " + list_str(a.update_window_dims) +
                       " and inserted_window_dims " + list_str(a.inserted_window_dims) +
                       " must together count the operand's " + num(r) + " dimensions in " + ctx());
  }
  // Window dims of the updates pair, in order, with the operand dims that are not inserted.
  size_t next_window = 0, next_batch = 0;
  for (size_t i = 0; i < u.shape.rank(); ++i) {
    if (contains(a.update_window_dims, static_cast<int64_t>(i))) {
      while (contains(a.inserted_window_dims, static_cast<int64_t>(next_window))) ++next_window;
      if (u.shape[i] > x.shape[next_window]) {
        shape_fail(op, "update window dimension " + num(static_cast<int64_t>(i)) + " (size " +
                           num(u.shape[i]) + ") is larger than operand dimension " +
                           num(static_cast<int64_t>(next_window)) + " in " + ctx());
      }
      ++next_window;
    } else {
      if (u.shape[i] != idx.shape[next_batch]) {
        shape_fail(op, "update scatter dimension " + num(static_cast<int64_t>(i)) + " (size " +
                           num(u.shape[i]) + ") must equal indices dimension " +
                           num(static_cast<int64_t>(next_batch)) + " in " + ctx());
      }
      ++next_batch;
    }
  }
  out = {x};
}

void random_bits(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out) {
  const auto& a = std::get<RandomBitsAttrs>(attrs);
  const TensorType key{DType::i64, Shape{2}};
  if (in[0].shape != key.shape) {
    shape_fail(op, "key must be i64[2], got " + in[0].str() + "; make one with a random seed");
  }
  if (in[0].dtype != key.dtype) {
    dtype_fail(op, "key must be i64[2], got " + in[0].str() + "; make one with a random seed");
  }
  if (!is_integer(a.dtype)) {
    dtype_fail(op, "dtype must be i8, i32, i64, u8 or u32, got " + dt(a.dtype) +
                       "; convert the bits afterwards");
  }
  checked_numel(op, a.shape, "shape");
  out = {TensorType{a.dtype, a.shape}, key};
}

}  // namespace lazax::shape_rules
