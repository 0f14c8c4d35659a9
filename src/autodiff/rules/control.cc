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
// scan's JVP: one scan whose carry is (carry, float carry tangents) and whose xs are (xs, float
// xs tangents); the body is the body's JVP program with its inputs and results reordered.
Tensors jvp_scan(const OpContext& c, const Tensors& ts) {
  if (!any_float_tangent(c, ts)) return no_tangents(c);
  const auto& scan_attrs = c.attr<ScanAttrs>();
  const Function& body = *scan_attrs.body;
  size_t num_carry = static_cast<size_t>(scan_attrs.num_carry);
  size_t num_xs = c.inputs.size() - num_carry;
  std::vector<TensorType> body_params = body.param_types(), body_results = body.result_types();
  size_t num_ys = body_results.size() - num_carry;
  // The indices in [from, from + n) of the floating types: the ones with tangents.
  auto float_indices = [](const std::vector<TensorType>& types, size_t from, size_t n) {
    std::vector<size_t> indices;
    for (size_t i = from; i < from + n; ++i)
      if (is_floating(types[i].dtype)) indices.push_back(i);
    return indices;
  };
  std::vector<size_t> float_carries = float_indices(body_params, 0, num_carry);
  std::vector<size_t> float_xs = float_indices(body_params, num_carry, num_xs);
  std::vector<size_t> float_carries_out = float_indices(body_results, 0, num_carry);
  std::vector<size_t> float_ys = float_indices(body_results, num_carry, num_ys);
  if (float_carries_out.size() != float_carries.size())
    throw ValueError("[jvp] scan: the body's float carries changed between input and output");
  // The new body: (carry, carry tangents, x, x tangents) -> (carry', carry' tangents, y, y
  // tangents), calling jvp_program(body): (carry, x, tangents of float carry and x) ->
  // (carry', y, tangents of float carry', y).
  Builder jvp_body(body.name() + "_jvp_scan");
  std::vector<ValueRef> carry_params, carry_tangent_params, x_params, x_tangent_params;
  for (size_t i = 0; i < num_carry; ++i) carry_params.push_back(jvp_body.param(body_params[i]));
  for (size_t i : float_carries) carry_tangent_params.push_back(jvp_body.param(body_params[i]));
  for (size_t i = 0; i < num_xs; ++i)
    x_params.push_back(jvp_body.param(body_params[num_carry + i]));
  for (size_t i : float_xs) x_tangent_params.push_back(jvp_body.param(body_params[i]));
  std::vector<ValueRef> jvp_args = carry_params;
  jvp_args.insert(jvp_args.end(), x_params.begin(), x_params.end());
  jvp_args.insert(jvp_args.end(), carry_tangent_params.begin(), carry_tangent_params.end());
  jvp_args.insert(jvp_args.end(), x_tangent_params.begin(), x_tangent_params.end());
  std::vector<ValueRef> jvp_results =
      jvp_body.add_multi(OpCode::call, jvp_args, CallAttrs{jvp_program(scan_attrs.body)});
  size_t num_primal_results = num_carry + num_ys;
  size_t next_tangent = num_primal_results;
  std::vector<ValueRef> new_results(jvp_results.begin(),
                                    jvp_results.begin() + static_cast<long>(num_carry));
  for (size_t i = 0; i < float_carries_out.size(); ++i)
    new_results.push_back(jvp_results[next_tangent++]);  // tangents of carry'
  for (size_t i = num_carry; i < num_primal_results; ++i)
    new_results.push_back(jvp_results[i]);  // y
  for (size_t i = 0; i < float_ys.size(); ++i)
    new_results.push_back(jvp_results[next_tangent++]);  // tangents of y
  ScanAttrs jvp_attrs{jvp_body.build(new_results), scan_attrs.length,
                      static_cast<int64_t>(num_carry + float_carries.size()), scan_attrs.reverse};
  Tensors scan_inputs(c.inputs.begin(), c.inputs.begin() + static_cast<long>(num_carry));
  for (size_t i : float_carries) scan_inputs.push_back(or_zeros(ts[i], c.inputs[i]));
  for (size_t i = 0; i < num_xs; ++i) scan_inputs.push_back(c.inputs[num_carry + i]);
  for (size_t i : float_xs) scan_inputs.push_back(or_zeros(ts[i], c.inputs[i]));
  Tensors scan_results = record_op(OpCode::scan, scan_inputs, jvp_attrs);
  // scan_results: carry', carry' tangents, ys, ys tangents.
  Tensors tangents(c.outputs.size());
  for (size_t j = 0; j < float_carries.size(); ++j)
    tangents[float_carries[j]] = scan_results[num_carry + j];
  size_t ys_tangents_start = num_carry + float_carries.size() + num_ys;
  for (size_t j = 0; j < float_ys.size(); ++j)
    tangents[float_ys[j]] = scan_results[ys_tangents_start + j];
  return tangents;
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
  const auto& while_attrs = c.attr<WhileAttrs>();
  // The new condition: (carry, tangents of its floating parts) -> cond(carry).
  Builder jvp_cond(while_attrs.cond->name() + "_jvp");
  std::vector<ValueRef> carry_params;
  for (const Tensor& x : c.inputs) carry_params.push_back(jvp_cond.param(x.impl()->type()));
  Tensors loop_inputs(c.inputs.begin(), c.inputs.end());
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!is_floating(c.inputs[i].dtype())) continue;
    jvp_cond.param(c.inputs[i].impl()->type());
    loop_inputs.push_back(or_zeros(ts[i], c.inputs[i]));
  }
  FunctionPtr cond =
      jvp_cond.build(jvp_cond.add_multi(OpCode::call, carry_params, CallAttrs{while_attrs.cond}));
  Tensors loop_results =
      record_op(OpCode::while_, loop_inputs, WhileAttrs{cond, jvp_program(while_attrs.body)});
  Tensors tangents;
  size_t next_tangent = c.outputs.size();
  for (const Tensor& o : c.outputs)
    tangents.push_back(is_floating(o.dtype()) ? loop_results[next_tangent++] : Tensor());
  return tangents;
}

}  // namespace lazax::autodiff
