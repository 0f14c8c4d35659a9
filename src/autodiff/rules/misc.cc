// VJP and JVP rules of the leaves (parameter, constant, iota), random_bits, and the identity-like
// ops: checkpoint_name, optimization_barrier, copy_to_memory_kind.
#include "common.h"

namespace lazax::autodiff {
using namespace detail;

// Leaves have no inputs; their values do not depend on anything differentiable.
Tensors vjp_parameter(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_parameter(const OpContext& c, const Tensors&) { return no_tangents(c); }
Tensors vjp_constant(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_constant(const OpContext& c, const Tensors&) { return no_tangents(c); }
Tensors vjp_iota(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_iota(const OpContext& c, const Tensors&) { return no_tangents(c); }

// Integer bits and key: nothing to differentiate.
Tensors vjp_random_bits(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_random_bits(const OpContext& c, const Tensors&) { return no_tangents(c); }

// checkpoint_name names the primal only (as JAX): cotangents and tangents pass through unnamed.
Tensors vjp_checkpoint_name(const OpContext& c, const Tensors& cts) {
  if (!needs_ct(c, 0)) return {Tensor()};
  return cts;
}
Tensors jvp_checkpoint_name(const OpContext& c, const Tensors& ts) {
  if (!is_floating(c.outputs[0].dtype())) return {Tensor()};
  return ts;
}

// optimization_barrier is an identity on each operand.
Tensors vjp_optimization_barrier(const OpContext& c, const Tensors& cts) {
  Tensors out(c.inputs.size());
  for (size_t i = 0; i < out.size() && i < cts.size(); ++i)
    if (needs_ct(c, i)) out[i] = cts[i];
  return out;
}
Tensors jvp_optimization_barrier(const OpContext& c, const Tensors& ts) {
  Tensors out(c.outputs.size());
  for (size_t i = 0; i < out.size() && i < ts.size(); ++i)
    if (is_floating(c.outputs[i].dtype())) out[i] = ts[i];
  return out;
}

// A copy between memory kinds: the cotangent goes back to where the source lived (device
// memory, the only place computation happens); the tangent travels with the value.
Tensors vjp_copy_to_memory_kind(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {record_op(OpCode::copy_to_memory_kind, {cts[0]}, MemoryKindAttrs{MemoryKind::device})};
}
Tensors jvp_copy_to_memory_kind(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  return {record_op(OpCode::copy_to_memory_kind, {ts[0]}, c.attrs)};
}

}  // namespace lazax::autodiff
