// scan's VJP: the body's forward/backward split (vjp_programs, under a remat policy or lazax's
// default partition) run as two scans. The forward scan runs the body's forward program and
// stacks, one row per iteration, what its backward keeps (the residuals, and the carries it
// reads); the backward scan runs the other way over those rows and the xs, carrying the
// carries' cotangents. What the policy does not save, each backward iteration recomputes.
#include <memory>
#include <span>

#include "engine.h"
#include "lazax/autodiff/function_ad.h"
#include "lazax/autodiff/remat.h"
#include "lazax/autodiff/rules.h"
#include "lazax/autodiff/tape.h"
#include "lazax/autodiff/transforms.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/builder.h"

namespace lazax::autodiff {
namespace {

metrics::Counter& c_saved_bytes = metrics::counter("ScanSavedBytes");

// The two scans of one scan's VJP.
struct ScanSplit {
  const VjpPrograms* p = nullptr;
  size_t num_carry = 0, num_xs = 0, num_ys = 0;
  std::vector<size_t> carries_read;  // carries the backward reads (stacked by the forward)
  std::vector<size_t> xs_read;       // xs the backward reads (their stacked operands)
  ScanAttrs fwd;                     // (carry, xs) -> (carry', ys, residuals, carries read)
  ScanAttrs bwd;  // (ct carry, residuals, carries read, xs read, ct float ys) -> (ct carry0, ct xs)
};

// The forward body: the body's forward program, returning the carries the backward reads too.
FunctionPtr forward_body(const Function& body, const ScanSplit& s) {
  Builder b(body.name() + "_fwd_scan");
  std::vector<ValueRef> params;
  for (const TensorType& t : body.param_types()) params.push_back(b.param(t));
  std::vector<ValueRef> out = b.add_multi(OpCode::call, params, CallAttrs{s.p->fwd});
  for (size_t i : s.carries_read) out.push_back(params[i]);
  return b.build(out);
}

// The backward body: calls the body's backward program on one iteration's rows.
FunctionPtr backward_body(const Function& body, const ScanSplit& s) {
  const VjpPrograms& p = *s.p;
  std::vector<TensorType> bp = body.param_types(), br = body.result_types();
  Builder b(body.name() + "_bwd_scan");
  std::vector<ValueRef> ct_carry, residuals, read(bp.size()), ct_ys;
  for (size_t i = 0; i < s.num_carry; ++i) ct_carry.push_back(b.param(bp[i]));
  const auto first_residual = static_cast<size_t>(p.num_outputs);
  residuals.reserve(static_cast<size_t>(p.num_residuals));
  for (size_t k = 0; k < static_cast<size_t>(p.num_residuals); ++k)
    residuals.push_back(b.param(p.fwd->type(p.fwd->results()[first_residual + k])));
  for (size_t i : s.carries_read) read[i] = b.param(bp[i]);
  for (size_t j : s.xs_read) read[s.num_carry + j] = b.param(bp[s.num_carry + j]);
  for (size_t j = 0; j < s.num_ys; ++j)
    if (is_floating(br[s.num_carry + j].dtype)) ct_ys.push_back(b.param(br[s.num_carry + j]));
  std::vector<ValueRef> args = residuals;
  for (int i : p.bwd_inputs) args.push_back(read[static_cast<size_t>(i)]);
  for (size_t i = 0; i < s.num_carry; ++i)
    if (is_floating(br[i].dtype)) args.push_back(ct_carry[i]);
  args.insert(args.end(), ct_ys.begin(), ct_ys.end());
  std::vector<ValueRef> g = b.add_multi(OpCode::call, args, CallAttrs{p.bwd});
  std::vector<ValueRef> results;
  size_t k = 0;
  for (size_t i = 0; i < s.num_carry; ++i)
    results.push_back(p.wrt[i] ? g[k++] : b.constant(Literal::zeros(bp[i])));
  for (size_t j = 0; j < s.num_xs; ++j)
    if (p.wrt[s.num_carry + j]) results.push_back(g[k++]);
  return b.build(results);
}

// `f` with its outermost calls replaced by the callees' nodes (one level). control_flow's scan
// wraps the traced body in a call; differentiated as a call, the whole body would be one node
// that the backward recomputes (call's rule), whatever the policy.
FunctionPtr inline_outer_calls(const FunctionPtr& f) {
  Builder b(f->name());
  std::vector<std::vector<ValueRef>> values(f->nodes().size());
  for (int i = 0; i < f->num_params(); ++i)
    values[static_cast<size_t>(i)] = {b.param(f->param_type(i))};
  auto mapped = [](const std::vector<std::vector<ValueRef>>& vals, ValueRef v) {
    return vals[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)];
  };
  for (size_t i = static_cast<size_t>(f->num_params()); i < f->nodes().size(); ++i) {
    Node n = f->nodes()[i];
    for (ValueRef& o : n.operands) o = mapped(values, o);
    if (n.op != OpCode::call) {
      values[i] = b.add_node(std::move(n));
      continue;
    }
    const Function& callee = *std::get<CallAttrs>(n.attrs).callee;
    std::vector<std::vector<ValueRef>> inner(callee.nodes().size());
    for (int k = 0; k < callee.num_params(); ++k)
      inner[static_cast<size_t>(k)] = {n.operands[static_cast<size_t>(k)]};
    for (size_t k = static_cast<size_t>(callee.num_params()); k < callee.nodes().size(); ++k) {
      Node m = callee.nodes()[k];
      for (ValueRef& o : m.operands) o = mapped(inner, o);
      inner[k] = b.add_node(std::move(m));
    }
    values[i].reserve(callee.results().size());
    for (ValueRef r : callee.results()) values[i].push_back(mapped(inner, r));
  }
  std::vector<ValueRef> results;
  results.reserve(f->results().size());
  for (ValueRef r : f->results()) results.push_back(mapped(values, r));
  return b.build(results);
}

ScanSplit split_scan(const ScanAttrs& a, const RematPolicy* policy, bool prevent_cse) {
  const Function& body = *a.body;
  ScanSplit s;
  s.num_carry = static_cast<size_t>(a.num_carry);
  s.num_xs = body.param_types().size() - s.num_carry;
  s.num_ys = body.result_types().size() - s.num_carry;
  std::vector<bool> wrt;
  wrt.reserve(body.param_types().size());
  for (const TensorType& t : body.param_types()) wrt.push_back(is_floating(t.dtype));
  s.p = &vjp_programs(inline_outer_calls(a.body), wrt, policy, prevent_cse);
  for (int i : s.p->bwd_inputs) {
    const auto u = static_cast<size_t>(i);
    (u < s.num_carry ? s.carries_read : s.xs_read).push_back(u < s.num_carry ? u : u - s.num_carry);
  }
  s.fwd = ScanAttrs{forward_body(body, s), a.length, a.num_carry, a.reverse};
  s.bwd = ScanAttrs{backward_body(body, s), a.length, a.num_carry, !a.reverse};
  return s;
}

// Records the backward scan. `stacked`: the forward scan's stacked residuals and carries read;
// `inputs`: the primal scan's operands (carries, then xs); `outputs`: its results' types;
// `cts`: one per result (undefined: zero). Returns one cotangent per operand.
std::vector<Tensor> backward_scan(const ScanSplit& s, std::span<const Tensor> stacked,
                                  std::span<const Tensor> inputs,
                                  const std::vector<TensorType>& outputs,
                                  const std::vector<Tensor>& cts) {
  auto ct = [&](size_t i) { return cts[i].defined() ? cts[i] : zeros_of(outputs[i]); };
  std::vector<Tensor> in;
  for (size_t i = 0; i < s.num_carry; ++i) in.push_back(ct(i));
  in.insert(in.end(), stacked.begin(), stacked.end());
  for (size_t j : s.xs_read) in.push_back(inputs[s.num_carry + j]);
  for (size_t j = 0; j < s.num_ys; ++j)
    if (is_floating(outputs[s.num_carry + j].dtype)) in.push_back(ct(s.num_carry + j));
  std::vector<Tensor> r = record_op(OpCode::scan, in, s.bwd);
  std::vector<Tensor> result;
  result.reserve(inputs.size());
  for (size_t i = 0; i < s.num_carry; ++i) result.push_back(s.p->wrt[i] ? r[i] : Tensor());
  size_t k = s.num_carry;
  for (size_t j = 0; j < s.num_xs; ++j)
    result.push_back(s.p->wrt[s.num_carry + j] ? r[k++] : Tensor());
  return result;
}

std::vector<TensorType> types_of(std::span<const Tensor> ts) {
  std::vector<TensorType> types;
  types.reserve(ts.size());
  for (const Tensor& t : ts) types.push_back(t.impl()->type());
  return types;
}

// What scan_with_vjp's tape entry keeps for its backward (and forward mode).
struct ScanVjpState {
  ScanSplit split;
  SharedAttrs attrs;  // the primal scan's
  std::vector<Tensor> stacked;
  std::vector<TensorType> outputs;
};

// The VJP from the inputs alone: the forward scan again, then the backward scan. Differentiable
// as a function of the inputs too (the residuals are recomputed from them, on the tape).
std::vector<Tensor> vjp_from_inputs(const ScanAttrs& a, std::span<const Tensor> inputs,
                                    const std::vector<TensorType>& outputs,
                                    const std::vector<Tensor>& cts) {
  ScanSplit s = split_scan(a, nullptr, false);
  std::vector<Tensor> fwd = record_op(OpCode::scan, inputs, s.fwd);
  std::span<const Tensor> stacked(fwd.begin() + static_cast<long>(s.num_carry + s.num_ys),
                                  fwd.end());
  return backward_scan(s, stacked, inputs, outputs, cts);
}

// Whether the backward will itself be differentiated (create_graph, or forward mode over it).
bool backward_taped(const std::vector<Tensor>& cts, std::span<const Tensor> inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor& t : cts)
    if (t.defined() && t.requires_grad()) return true;
  for (const Tensor& t : inputs)
    if (t.requires_grad()) return true;
  return false;
}

}  // namespace

std::vector<Tensor> scan_vjp(const OpContext& c, const std::vector<Tensor>& cts) {
  return vjp_from_inputs(c.attr<ScanAttrs>(), c.inputs, types_of(c.outputs), cts);
}

std::vector<Tensor> scan_with_vjp(const ScanAttrs& a, const std::vector<Tensor>& inputs,
                                  const RematPolicy* policy, bool prevent_cse) {
  bool any = false;
  for (const Tensor& t : inputs) any = any || t.requires_grad();
  if (!any || !grad_enabled()) return record_op(OpCode::scan, inputs, a).vec();
  auto state = std::make_shared<ScanVjpState>();
  state->split = split_scan(a, policy, policy && prevent_cse);
  state->attrs = SharedAttrs(a);
  const ScanSplit& s = state->split;
  std::vector<Tensor> all;
  {
    NoGrad off;
    all = record_op(OpCode::scan, inputs, s.fwd).vec();
  }
  const auto num_out = static_cast<long>(s.num_carry + s.num_ys);
  std::vector<Tensor> outs(all.begin(), all.begin() + num_out);
  state->stacked.assign(all.begin() + num_out, all.end());
  int64_t saved_bytes = 0;
  for (const Tensor& t : state->stacked)
    saved_bytes += static_cast<int64_t>(t.impl()->type().bytes());
  c_saved_bytes.add(saved_bytes);
  state->outputs = types_of(outs);
  ScanVjpState* st = state.get();
  return lazax::detail::attach_custom_vjp(
      inputs, std::move(outs),
      [st](const std::vector<Tensor>& cts, std::span<const Tensor> saved_inputs) {
        // (A backward that is itself differentiated recomputes the residuals from the inputs,
        // as assume_pure's does: the stacked ones are constants to it.)
        if (backward_taped(cts, saved_inputs))
          return vjp_from_inputs(std::get<ScanAttrs>(*st->attrs), saved_inputs, st->outputs, cts);
        std::vector<Tensor> g =
            backward_scan(st->split, st->stacked, saved_inputs, st->outputs, cts);
        // (Without retain_graph the stacked residuals are not needed again: freed now rather
        // than when the tape entry goes.)
        if (saved_values_released_after_rule()) st->stacked.clear();
        return g;
      },
      state,
      // Forward mode: scan's own JVP rule on the inputs of the call.
      [st](const std::vector<Tensor>& tangents, std::span<const Tensor> saved_inputs) {
        const std::vector<Tensor> outputs(st->outputs.size());
        OpContext c{OpCode::scan, st->attrs, saved_inputs, outputs};
        return jvp_rule(OpCode::scan)(c, tangents);
      });
}

}  // namespace lazax::autodiff
