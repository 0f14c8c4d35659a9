// VJP and JVP rules of the ops with sub-functions: call, cond, while, scan. They differentiate
// the sub-functions by function transformation (autodiff/function_ad.cc). while_ is not
// reverse-differentiable (as in JAX): its trip count is only known at run time.
#include "common.h"
#include "lazax/autodiff/function_ad.h"
#include "lazax/ir/builder.h"

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
      "static bounds instead (forward mode, jvp, does work for while_loop)");
}

// while_'s JVP (as JAX's _while_loop_jvp): one while over the carry and the tangents of its
// floating parts. The body is the body's JVP program (carry ++ tangents -> carry ++ tangents);
// the condition looks at the carry only.
Tensors jvp_while_(const OpContext& c, const Tensors& ts) {
  if (!any_float_tangent(c, ts)) return no_tangents(c);
  const auto& a = c.attr<WhileAttrs>();
  Builder cb(a.cond->name() + "_jvp");
  std::vector<ValueRef> carry;
  for (const Tensor& x : c.inputs) carry.push_back(cb.param(x.impl()->type()));
  Tensors in = c.inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!is_floating(c.inputs[i].dtype())) continue;
    cb.param(c.inputs[i].impl()->type());
    in.push_back(or_zeros(ts[i], c.inputs[i]));
  }
  FunctionPtr cond = cb.build(cb.add_multi(OpCode::call, carry, CallAttrs{a.cond}));
  Tensors r = apply_primitive(OpCode::while_, WhileAttrs{cond, jvp_program(a.body)}, in);
  Tensors out;
  size_t k = c.outputs.size();
  for (const Tensor& o : c.outputs) out.push_back(is_floating(o.dtype()) ? r[k++] : Tensor());
  return out;
}

}  // namespace lazax::autodiff
