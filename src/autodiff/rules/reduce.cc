// VJP and JVP rules of the reductions: reduce_sum/max/min/prod, argmax, cumsum.
#include <algorithm>

#include "common.h"

namespace lazax::autodiff {
using namespace detail;

namespace {

bool is_axis(const IntList& axes, size_t d) {
  return std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
}

// Broadcasts a reduced tensor (the reduced axes removed) back to `shape`.
Tensor unreduce(const Tensor& r, const Shape& shape, const IntList& axes) {
  IntList kept;
  for (size_t d = 0; d < shape.rank(); ++d)
    if (!is_axis(axes, d)) kept.push_back(static_cast<int64_t>(d));
  return record_op(OpCode::broadcast_in_dim, {r}, BroadcastInDimAttrs{shape, kept});
}

Tensor reduce_sum_axes(const Tensor& t, const IntList& axes) {
  return record_op(OpCode::reduce_sum, {t}, ReduceAttrs{axes});
}

// reduce_max/min: the positions that hold the result, as 0/1 of x's dtype, and how many there
// are per output element (the cotangent is shared equally among ties, as JAX does).
struct Chosen {
  Tensor mask, counts;
};
Chosen chosen(const OpContext& c) {
  const Tensor& x = c.inputs[0];
  const IntList& axes = c.attr<ReduceAttrs>().axes;
  Tensor mask = eq(x, unreduce(c.outputs[0], x.shape(), axes)).to(x.dtype());
  return {mask, reduce_sum_axes(mask, axes)};
}

Tensors chooser_vjp(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  Chosen ch = chosen(c);
  const IntList& axes = c.attr<ReduceAttrs>().axes;
  return {unreduce(cts[0] / ch.counts, c.inputs[0].shape(), axes) * ch.mask};
}
Tensors chooser_jvp(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  Chosen ch = chosen(c);
  return {reduce_sum_axes(ts[0] * ch.mask, c.attr<ReduceAttrs>().axes) / ch.counts};
}

// d prod / d x_i = product of the other elements, computed without dividing by zero: with no
// zero in the reduced group it is prod / x_i; with exactly one zero, only the zero's position has
// a non-zero derivative (the product of the non-zeros); with two or more, all are zero.
Tensor prod_partials(const OpContext& c) {
  const Tensor& x = c.inputs[0];
  const IntList& axes = c.attr<ReduceAttrs>().axes;
  Tensor zero = full_like_value(x, 0.0), one = full_like_value(x, 1.0);
  Tensor is_zero = eq(x, zero);
  Tensor nonzero = record_op(OpCode::select, {is_zero, one, x});
  Tensor prod_nonzero =
      unreduce(record_op(OpCode::reduce_prod, {nonzero}, c.attrs), x.shape(), axes);
  Tensor zero_count = unreduce(reduce_sum_axes(is_zero.to(x.dtype()), axes), x.shape(), axes);
  Tensor none = eq(zero_count, zero), one_zero = eq(zero_count, one);
  Tensor at_zero = record_op(OpCode::select, {one_zero, prod_nonzero, zero});
  Tensor elsewhere = record_op(OpCode::select, {none, prod_nonzero / nonzero, zero});
  return record_op(OpCode::select, {is_zero, at_zero, elsewhere});
}

}  // namespace

Tensors vjp_reduce_sum(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {unreduce(cts[0], c.inputs[0].shape(), c.attr<ReduceAttrs>().axes)};
}
Tensors jvp_reduce_sum(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  return {record_op(OpCode::reduce_sum, {ts[0]}, c.attrs)};
}

Tensors vjp_reduce_max(const OpContext& c, const Tensors& cts) { return chooser_vjp(c, cts); }
Tensors jvp_reduce_max(const OpContext& c, const Tensors& ts) { return chooser_jvp(c, ts); }
Tensors vjp_reduce_min(const OpContext& c, const Tensors& cts) { return chooser_vjp(c, cts); }
Tensors jvp_reduce_min(const OpContext& c, const Tensors& ts) { return chooser_jvp(c, ts); }

Tensors vjp_reduce_prod(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const Tensor& x = c.inputs[0];
  return {unreduce(cts[0], x.shape(), c.attr<ReduceAttrs>().axes) * prod_partials(c)};
}
Tensors jvp_reduce_prod(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  return {reduce_sum_axes(ts[0] * prod_partials(c), c.attr<ReduceAttrs>().axes)};
}

// Integer result: never on the tape.
Tensors vjp_argmax(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_argmax(const OpContext& c, const Tensors&) { return no_tangents(c); }

// cumsum's transpose is the cumulative sum in the other direction.
Tensors vjp_cumsum(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  CumsumAttrs a = c.attr<CumsumAttrs>();
  a.reverse = !a.reverse;
  return {record_op(OpCode::cumsum, {cts[0]}, a)};
}
Tensors jvp_cumsum(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  return {record_op(OpCode::cumsum, {ts[0]}, c.attrs)};
}

}  // namespace lazax::autodiff
