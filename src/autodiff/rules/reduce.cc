// VJP and JVP rules of the reductions (reduce_*, argmax/argmin), the cumulative ops, rev and
// sort.
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

// The index tuples [..., rank] that pick, for each position of `indices` (i64, x's shape), the
// element of x at that position with its `axis` coordinate replaced by the index there.
Tensor along_axis(const Tensor& indices, int64_t axis) {
  const Shape& s = indices.shape();
  const auto rank = static_cast<int64_t>(s.rank());
  Shape col = s;
  col.dims().push_back(1);
  std::vector<Tensor> parts;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis)
      parts.push_back(record_op(OpCode::reshape, {indices}, ReshapeAttrs{col}));
    else
      parts.push_back(record_op(OpCode::iota, {}, IotaAttrs{DType::i64, col, d}));
  }
  return record_op(OpCode::concatenate, parts, ConcatenateAttrs{rank});
}

IntList all_dims(int64_t rank) {
  IntList d;
  for (int64_t i = 0; i < rank; ++i) d.push_back(i);
  return d;
}

// take_along_axis(t, indices, axis): t's elements at `indices` along `axis`.
Tensor take_along(const Tensor& t, const Tensor& indices, int64_t axis) {
  const auto rank = static_cast<int64_t>(t.shape().rank());
  GatherAttrs g{
      {}, all_dims(rank), all_dims(rank), IntList(static_cast<size_t>(rank), 1), GatherMode::clip};
  return record_op(OpCode::gather, {t, along_axis(indices, axis)}, g);
}

// The transpose of take_along: each element of `ct` added into zeros of `like`'s type at its
// index along `axis`.
Tensor put_along(const Tensor& ct, const Tensor& indices, int64_t axis, const Tensor& like) {
  const auto rank = static_cast<int64_t>(like.shape().rank());
  ScatterAttrs a{{}, all_dims(rank), all_dims(rank), GatherMode::clip};
  return record_op(OpCode::scatter_add, {zeros_like_type(like), along_axis(indices, axis), ct}, a);
}

// sort and cummax/cummin: values[p] = x[indices[p]] along `axis`, indices the second result.
Tensors picked_vjp(const OpContext& c, const Tensors& cts, int64_t axis) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {put_along(cts[0], c.outputs[1], axis, c.inputs[0])};
}
Tensors picked_jvp(const OpContext& c, const Tensors& ts, int64_t axis) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor(), Tensor()};
  return {take_along(ts[0], c.outputs[1], axis), Tensor()};
}

// cumprod along a line with its first zero (in scan order) at z: before z, the partials are
// out / x (no zero divides); at z, the product of the elements before z times that of those
// between z and the result; after z, every partial holds the zero at z and is 0.
struct CumprodParts {
  Tensor before, at_z, x_safe, prod_before_z, prod_after_z;
};
CumprodParts cumprod_parts(const OpContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor zero = full_like_value(x, 0.0), one = full_like_value(x, 1.0);
  const Tensor izero = zeros(x.sizes(), DType::i32), ione = ones(x.sizes(), DType::i32);
  Tensor is_zero = eq(x, zero);
  Tensor zi = is_zero.to(DType::i32);
  Tensor zc = record_op(OpCode::cumsum, {zi}, c.attrs);  // zeros up to here, inclusive
  Tensor zc_excl = zc - zi;
  CumprodParts p;
  p.before = eq(zc, izero);
  p.at_z = eq(zi - zc_excl, ione);
  p.x_safe = record_op(OpCode::select, {p.before, x, one});
  p.prod_before_z =
      record_op(OpCode::cumprod, {record_op(OpCode::select, {is_zero, one, x})}, c.attrs);
  Tensor upto_z = eq(zc_excl, izero);
  p.prod_after_z =
      record_op(OpCode::cumprod, {record_op(OpCode::select, {upto_z, one, x})}, c.attrs);
  return p;
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

Tensors vjp_argmin(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_argmin(const OpContext& c, const Tensors&) { return no_tangents(c); }
Tensors vjp_reduce_and(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_reduce_and(const OpContext& c, const Tensors&) { return no_tangents(c); }
Tensors vjp_reduce_or(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_reduce_or(const OpContext& c, const Tensors&) { return no_tangents(c); }

// rev is its own transpose.
Tensors vjp_rev(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {record_op(OpCode::rev, {cts[0]}, c.attrs)};
}
Tensors jvp_rev(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  return {record_op(OpCode::rev, {ts[0]}, c.attrs)};
}

// sort, cummax, cummin: the cotangent goes back to the index each value came from.
Tensors vjp_sort(const OpContext& c, const Tensors& cts) {
  return picked_vjp(c, cts, c.attr<SortAttrs>().axis);
}
Tensors jvp_sort(const OpContext& c, const Tensors& ts) {
  return picked_jvp(c, ts, c.attr<SortAttrs>().axis);
}
Tensors vjp_cummax(const OpContext& c, const Tensors& cts) {
  return picked_vjp(c, cts, c.attr<CumsumAttrs>().axis);
}
Tensors jvp_cummax(const OpContext& c, const Tensors& ts) {
  return picked_jvp(c, ts, c.attr<CumsumAttrs>().axis);
}
Tensors vjp_cummin(const OpContext& c, const Tensors& cts) {
  return picked_vjp(c, cts, c.attr<CumsumAttrs>().axis);
}
Tensors jvp_cummin(const OpContext& c, const Tensors& ts) {
  return picked_jvp(c, ts, c.attr<CumsumAttrs>().axis);
}

// d out_j / d x_k = prod_{i <= j, i != k} x_i (in scan order), right also where x has zeros
// (see cumprod_parts).
Tensors vjp_cumprod(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  CumsumAttrs back = c.attr<CumsumAttrs>();
  back.reverse = !back.reverse;
  const Tensor& g = cts[0];
  const Tensor zero = full_like_value(g, 0.0);
  CumprodParts p = cumprod_parts(c);
  Tensor g_before = record_op(OpCode::cumsum, {g * c.outputs[0]}, back) / p.x_safe;
  Tensor from_z = record_op(OpCode::select, {p.before, zero, g});
  Tensor g_at_z = p.prod_before_z * record_op(OpCode::cumsum, {from_z * p.prod_after_z}, back);
  Tensor rest = record_op(OpCode::select, {p.at_z, g_at_z, zero});
  return {record_op(OpCode::select, {p.before, g_before, rest})};
}
Tensors jvp_cumprod(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  const Tensor& t = ts[0];
  const Tensor zero = full_like_value(t, 0.0);
  CumprodParts p = cumprod_parts(c);
  Tensor t_before = c.outputs[0] * record_op(OpCode::cumsum, {t / p.x_safe}, c.attrs);
  Tensor t_z = record_op(OpCode::select, {p.at_z, p.prod_before_z * t, zero});
  Tensor t_after = record_op(OpCode::cumsum, {t_z}, c.attrs) * p.prod_after_z;
  return {record_op(OpCode::select, {p.before, t_before, t_after})};
}

}  // namespace lazax::autodiff
