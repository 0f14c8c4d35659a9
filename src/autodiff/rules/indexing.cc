// VJP and JVP rules of gather and scatter_add. gather's transpose is a scatter_add into zeros
// with the matching dimension numbers, and scatter_add's transpose (for the updates) is a gather.
// In `fill` mode an out-of-bounds window reads the fill value (NaN for floats) and is dropped
// by scatter_add; its derivative is zero (JAX passes fill_value=0 to the transposed gather), so
// the rules mask those windows instead of letting NaN through.
#include "common.h"

namespace lazax::autodiff {
using namespace detail;

namespace {

// A gather's dimension numbers as a scatter_add's (the same window, seen from the other side).
ScatterAttrs scatter_of(const GatherAttrs& g) {
  return ScatterAttrs{g.offset_dims, g.collapsed_slice_dims, g.start_index_map, g.mode};
}

// True at each index-batch position whose window fits in `operand_shape` (fill-mode bounds:
// 0 <= start <= dim - window), broadcast to the gather result `out_shape` whose non-offset dims
// are the batch dims.
Tensor in_bounds(const Tensor& indices, const Shape& operand_shape, const IntList& index_map,
                 const IntList& slice_sizes, const IntList& offset_dims, const Shape& out_shape) {
  const size_t k = index_map.size();
  std::vector<int64_t> upper;
  for (int64_t d : index_map) {
    auto du = static_cast<size_t>(d);
    upper.push_back(operand_shape[du] - slice_sizes[du]);
  }
  const Shape& is = indices.shape();
  IntList last_dim = {static_cast<int64_t>(is.rank()) - 1};
  // A constant node, not a data tensor: inside a VJP program's trace data would be a capture.
  Tensor hi = record_op(
      OpCode::constant, {},
      ConstantAttrs{Literal::from_vector<int64_t>(upper, Shape({static_cast<int64_t>(k)}))});
  hi = hi.to(indices.dtype());
  hi = record_op(OpCode::broadcast_in_dim, {hi}, BroadcastInDimAttrs{is, last_dim});
  Tensor lo = zeros(is.vec(), indices.dtype());
  Tensor ok = ge(indices, lo).to(DType::i32) * le(indices, hi).to(DType::i32);
  Tensor all_ok = record_op(OpCode::reduce_min, {ok}, ReduceAttrs{last_dim});
  Tensor mask = gt(all_ok, zeros(all_ok.sizes(), DType::i32));
  IntList batch_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(out_shape.rank()); ++d) {
    bool offset = false;
    for (int64_t o : offset_dims) offset = offset || o == d;
    if (!offset) batch_dims.push_back(d);
  }
  return record_op(OpCode::broadcast_in_dim, {mask}, BroadcastInDimAttrs{out_shape, batch_dims});
}

// gather(operand, indices) with out-of-bounds windows reading 0 in fill mode.
Tensor gather_or_zero(const Tensor& operand, const Tensor& indices, const GatherAttrs& a) {
  Tensor g = record_op(OpCode::gather, {operand, indices}, a);
  if (a.mode != GatherMode::fill || a.start_index_map.empty()) return g;
  Tensor mask = in_bounds(indices, operand.shape(), a.start_index_map, a.slice_sizes, a.offset_dims,
                          g.shape());
  return record_op(OpCode::select, {mask, g, zeros_like_type(g)});
}

// The gather that reads back, from a tensor shaped like scatter_add's operand, what each update
// element was added to.
GatherAttrs gather_of(const ScatterAttrs& s, const Shape& operand, const Shape& updates) {
  GatherAttrs g;
  g.offset_dims = s.update_window_dims;
  g.collapsed_slice_dims = s.inserted_window_dims;
  g.start_index_map = s.scatter_dims_to_operand_dims;
  g.mode = s.mode;
  size_t next_window = 0;
  for (size_t d = 0; d < operand.rank(); ++d) {
    bool inserted = false;
    for (int64_t i : s.inserted_window_dims) inserted = inserted || i == static_cast<int64_t>(d);
    if (inserted) {
      g.slice_sizes.push_back(1);
    } else {
      auto w = static_cast<size_t>(s.update_window_dims[next_window++]);
      g.slice_sizes.push_back(updates[w]);
    }
  }
  return g;
}

}  // namespace

Tensors vjp_gather(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return no_cts(c);
  const auto& a = c.attr<GatherAttrs>();
  Tensor zero = zeros_like_type(c.inputs[0]);
  return {record_op(OpCode::scatter_add, {zero, c.inputs[1], cts[0]}, scatter_of(a)), Tensor()};
}
Tensors jvp_gather(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  return {gather_or_zero(ts[0], c.inputs[1], c.attr<GatherAttrs>())};
}

Tensors vjp_scatter_add(const OpContext& c, const Tensors& cts) {
  Tensors out(3);
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return out;
  const auto& a = c.attr<ScatterAttrs>();
  if (needs_ct(c, 0)) out[0] = cts[0];
  if (needs_ct(c, 2)) {
    GatherAttrs g = gather_of(a, c.inputs[0].shape(), c.inputs[2].shape());
    out[2] = gather_or_zero(cts[0], c.inputs[1], g);
  }
  return out;
}
Tensors jvp_scatter_add(const OpContext& c, const Tensors& ts) {
  if ((!ts[0].defined() && !ts[2].defined()) || !is_floating(c.inputs[0].dtype()))
    return {Tensor()};
  return {record_op(OpCode::scatter_add,
                    {or_zeros(ts[0], c.inputs[0]), c.inputs[1], or_zeros(ts[2], c.inputs[2])},
                    c.attrs)};
}

}  // namespace lazax::autodiff
