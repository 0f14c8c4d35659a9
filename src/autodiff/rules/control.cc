// VJP and JVP rules of the ops with sub-functions: call, cond, while, scan. Differentiating a
// sub-function needs function transformation (tracing the rules into a new Function), which
// comes with assume_pure; until then these throw a clear error. while_ is not
// reverse-differentiable at all (as in JAX): its trip count is only known at run time.
#include "common.h"
#include "lazax/autodiff/function_ad.h"

namespace lazax::autodiff {
using namespace detail;

namespace {

// True when some floating carry has a tangent: only then is there anything to differentiate.
bool any_float_tangent(const OpContext& c, const Tensors& ts) {
  for (size_t i = 0; i < ts.size(); ++i)
    if (ts[i].defined() && is_floating(c.inputs[i].dtype())) return true;
  return false;
}

}  // namespace

// call and cond differentiate through their bodies' programs (autodiff/function_ad.cc).
Tensors vjp_call(const OpContext& c, const Tensors& cts) {
  if (all_undefined(cts)) return no_cts(c);
  return call_vjp(c, cts);
}
Tensors jvp_call(const OpContext& c, const Tensors& ts) {
  if (!any_float_tangent(c, ts)) return no_tangents(c);
  return call_jvp(c, ts);
}

Tensors vjp_cond(const OpContext& c, const Tensors& cts) {
  if (all_undefined(cts)) return no_cts(c);
  return cond_vjp(c, cts);
}
Tensors jvp_cond(const OpContext& c, const Tensors& ts) {
  if (!any_float_tangent(c, ts)) return no_tangents(c);
  return cond_jvp(c, ts);
}

Tensors vjp_scan(const OpContext& c, const Tensors& cts) {
  if (all_undefined(cts)) return no_cts(c);
  return scan_vjp(c, cts);
}
Tensors jvp_scan(const OpContext& c, const Tensors& ts) {
  if (!any_float_tangent(c, ts)) return no_tangents(c);
  throw_needs_function_transform("jvp", c.op);
}

Tensors vjp_while_(const OpContext& c, const Tensors& cts) {
  if (all_undefined(cts)) return no_cts(c);
  throw NotDifferentiableError(
      "[vjp] Reverse-mode differentiation does not work for while_loop (or fori_loop with "
      "dynamic start/stop values): its number of iterations is only known at run time, so there "
      "is no fixed set of values to save for the backward pass; use scan or fori_loop with "
      "static bounds instead (forward mode will differentiate while_loop once function "
      "transformation lands)");
}
Tensors jvp_while_(const OpContext& c, const Tensors& ts) {
  if (!any_float_tangent(c, ts)) return no_tangents(c);
  throw NotDifferentiableError(
      "[jvp] forward-mode differentiation of while_loop needs function transformation (a "
      "while over the carry and its tangent), which is not available yet; use scan or "
      "fori_loop with static bounds instead");
}

}  // namespace lazax::autodiff
