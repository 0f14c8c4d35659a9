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
  const auto& a = c.attr<ScanAttrs>();
  const Function& body = *a.body;
  size_t nc = static_cast<size_t>(a.num_carry), nx = c.inputs.size() - nc;
  std::vector<TensorType> bp = body.param_types(), br = body.result_types();
  size_t ny = br.size() - nc;
  auto floats = [](const std::vector<TensorType>& t, size_t from, size_t n) {
    std::vector<size_t> r;
    for (size_t i = from; i < from + n; ++i)
      if (is_floating(t[i].dtype)) r.push_back(i);
    return r;
  };
  std::vector<size_t> fc = floats(bp, 0, nc), fx = floats(bp, nc, nx);
  std::vector<size_t> fco = floats(br, 0, nc), fy = floats(br, nc, ny);
  // jvp_program(body): (c, x, tangents of float c and x) -> (c', y, tangents of float c', y).
  Builder b(body.name() + "_jvp_scan");
  std::vector<ValueRef> cv, tcv, xv, txv;
  for (size_t i = 0; i < nc; ++i) cv.push_back(b.param(bp[i]));
  for (size_t i : fc) tcv.push_back(b.param(bp[i]));
  for (size_t i = 0; i < nx; ++i) xv.push_back(b.param(bp[nc + i]));
  for (size_t i : fx) txv.push_back(b.param(bp[i]));
  std::vector<ValueRef> args = cv;
  args.insert(args.end(), xv.begin(), xv.end());
  args.insert(args.end(), tcv.begin(), tcv.end());
  args.insert(args.end(), txv.begin(), txv.end());
  std::vector<ValueRef> r = b.add_multi(OpCode::call, args, CallAttrs{jvp_program(a.body)});
  size_t nres = nc + ny;
  std::vector<ValueRef> out(r.begin(), r.begin() + static_cast<long>(nc));  // c'
  size_t k = nres;
  for (size_t i = 0; i < fco.size(); ++i) out.push_back(r[k++]);           // tangents of c'
  for (size_t i = nc; i < nres; ++i) out.push_back(r[i]);                  // y
  for (size_t i = 0; i < fy.size(); ++i) out.push_back(r[k++]);            // tangents of y
  if (fco.size() != fc.size())
    throw ValueError("[jvp] scan: the body's float carries changed between input and output");
  ScanAttrs attrs{b.build(out), a.length, static_cast<int64_t>(nc + fc.size()), a.reverse};
  Tensors in(c.inputs.begin(), c.inputs.begin() + static_cast<long>(nc));
  for (size_t i : fc) in.push_back(or_zeros(ts[i], c.inputs[i]));
  for (size_t i = 0; i < nx; ++i) in.push_back(c.inputs[nc + i]);
  for (size_t i : fx) in.push_back(or_zeros(ts[i], c.inputs[i]));
  Tensors res = apply_primitive(OpCode::scan, attrs, in);
  Tensors tangents(c.outputs.size());
  for (size_t j = 0; j < fc.size(); ++j) tangents[fc[j]] = res[nc + j];
  size_t ybase = nc + fc.size() + ny;
  for (size_t j = 0; j < fy.size(); ++j) tangents[fy[j]] = res[ybase + j];
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
  const auto& a = c.attr<WhileAttrs>();
  Builder cb(a.cond->name() + "_jvp");
  std::vector<ValueRef> carry;
  for (const Tensor& x : c.inputs) carry.push_back(cb.param(x.impl()->type()));
  Tensors in(c.inputs.begin(), c.inputs.end());
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
