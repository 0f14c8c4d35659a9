// VJP and JVP rules of the collectives. The objective of a distributed program is the sum of
// every rank's objective (as in jax.lax under pmap/shard_map): so psum's transpose is psum,
// pmean's is pmean, all_gather's is a summing reduce_scatter and the other way round,
// all_to_all's is all_to_all with the axes swapped, and a broadcast sends the summed cotangent
// back to its root. The tangent rules are the ops themselves (they are linear), but for max and
// min, whose derivative goes to the ranks that hold the extreme (split evenly on ties).
#include "common.h"
#include "lazax/api/ops_collective.h"
#include "lazax/core/error.h"

namespace lazax::autodiff {
using namespace detail;

namespace {

bool is_extreme(ReduceKind k) { return k == ReduceKind::max || k == ReduceKind::min; }

// The share of the rank's x in the extreme y: 1/(ranks holding it) where x == y, else 0.
Tensor extreme_share(const Tensor& x, const Tensor& y, int64_t g) {
  Tensor hit = (x == y).to(x.dtype());
  return hit / all_reduce(hit, ReduceKind::sum, g);
}

[[noreturn]] void no_extreme_scatter(const char* what) {
  throw NotDifferentiableError(std::string("[reduce_scatter] ") + what +
                               " of a max or min reduce_scatter is not defined here; use "
                               "all_reduce(x, max) and slice this rank's part");
}

}  // namespace

Tensors vjp_all_reduce(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const auto& a = c.attr<AllReduceAttrs>();
  if (!is_extreme(a.reduce)) return {all_reduce(cts[0], a.reduce, a.group_size)};
  return {all_reduce(cts[0], ReduceKind::sum, a.group_size) *
          extreme_share(c.inputs[0], c.outputs[0], a.group_size)};
}
Tensors jvp_all_reduce(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  const auto& a = c.attr<AllReduceAttrs>();
  if (!is_extreme(a.reduce)) return {all_reduce(ts[0], a.reduce, a.group_size)};
  return {all_reduce(ts[0] * extreme_share(c.inputs[0], c.outputs[0], a.group_size),
                     ReduceKind::sum, a.group_size)};
}

Tensors vjp_all_gather(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const auto& a = c.attr<AllGatherAttrs>();
  return {reduce_scatter(cts[0], a.axis, ReduceKind::sum, a.group_size)};
}
Tensors jvp_all_gather(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  const auto& a = c.attr<AllGatherAttrs>();
  return {all_gather(ts[0], a.axis, a.group_size)};
}

Tensors vjp_reduce_scatter(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const auto& a = c.attr<ReduceScatterAttrs>();
  if (is_extreme(a.reduce)) no_extreme_scatter("the gradient");
  Tensor g = all_gather(cts[0], a.axis, a.group_size);
  if (a.reduce == ReduceKind::mean) g = g / static_cast<double>(a.group_size);
  return {g};
}
Tensors jvp_reduce_scatter(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  const auto& a = c.attr<ReduceScatterAttrs>();
  if (is_extreme(a.reduce)) no_extreme_scatter("the tangent");
  return {reduce_scatter(ts[0], a.axis, a.reduce, a.group_size)};
}

Tensors vjp_all_to_all(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const auto& a = c.attr<AllToAllAttrs>();
  return {all_to_all(cts[0], a.concat_axis, a.split_axis, a.group_size)};
}
Tensors jvp_all_to_all(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  const auto& a = c.attr<AllToAllAttrs>();
  return {all_to_all(ts[0], a.split_axis, a.concat_axis, a.group_size)};
}

// Every rank's copy came from the root: the root gets the sum of the cotangents, the others 0.
Tensors vjp_collective_broadcast(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const auto& a = c.attr<CollectiveBroadcastAttrs>();
  Tensor total = all_reduce(cts[0], ReduceKind::sum, a.group_size);
  return {where(axis_index(a.group_size) == a.root, total, 0.0)};
}
Tensors jvp_collective_broadcast(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  const auto& a = c.attr<CollectiveBroadcastAttrs>();
  return {broadcast_from(ts[0], a.root, a.group_size)};
}

Tensors vjp_axis_index(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_axis_index(const OpContext& c, const Tensors&) { return no_tangents(c); }

}  // namespace lazax::autodiff
