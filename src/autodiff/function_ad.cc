#include "lazax/autodiff/function_ad.h"

#include <functional>
#include <map>
#include <mutex>

#include "lazax/api/tensor_impl.h"
#include "engine.h"
#include "lazax/autodiff/rules.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/builder.h"
#include "lazax/ir/extract.h"
#include "lazax/trace/scope.h"
#include "lazax/trace/trace_stack.h"

namespace lazax::autodiff {
namespace {

std::vector<Tensor> placeholders(const std::vector<TensorType>& types) {
  std::vector<Tensor> out;
  for (const auto& t : types) out.push_back(make_pending(add_trace_param(t)));
  return out;
}

std::vector<GraphValue> values_in_frame(const std::vector<Tensor>& ts) {
  std::vector<GraphValue> out;
  for (const Tensor& t : ts) out.push_back(operand(t, "trace"));
  return out;
}

std::mutex g_mu;
std::map<std::pair<uint64_t, std::vector<bool>>, VjpPrograms> g_vjp_cache;
std::map<uint64_t, FunctionPtr> g_jvp_cache;

}  // namespace

std::vector<Tensor> replay(const Function& f, const std::vector<Tensor>& args) {
  if (static_cast<int>(args.size()) != f.num_params())
    throw ValueError("[replay] @" + f.name() + " takes " + std::to_string(f.num_params()) +
                     " arguments, got " + std::to_string(args.size()));
  std::vector<std::vector<Tensor>> values(f.nodes().size());
  for (int i = 0; i < f.num_params(); ++i) {
    if (args[static_cast<size_t>(i)].impl()->type() != f.param_type(i))
      throw ValueError("[replay] argument " + std::to_string(i) + " of @" + f.name() +
                       " should be " + f.param_type(i).str() + ", got " +
                       args[static_cast<size_t>(i)].type_str());
    values[static_cast<size_t>(i)] = {args[static_cast<size_t>(i)]};
  }
  for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    std::vector<Tensor> in;
    for (auto o : n.operands) in.push_back(values[static_cast<size_t>(o.node)][static_cast<size_t>(o.index)]);
    ProfilerScope scope = ProfilerScope::restore(n.debug.scope);
    values[i] = apply_primitive(n.op, n.attrs, in);
  }
  std::vector<Tensor> out;
  for (auto r : f.results()) out.push_back(values[static_cast<size_t>(r.node)][static_cast<size_t>(r.index)]);
  return out;
}

const VjpPrograms& vjp_programs(const FunctionPtr& f, const std::vector<bool>& wrt) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_vjp_cache.find({f->hash(), wrt});
    if (it != g_vjp_cache.end()) return it->second;
  }
  metrics::counter("VjpProgramBuilds").add();
  metrics::ScopedTimer timed(metrics::timer("VjpBuildTime"));
  std::vector<TensorType> in_types = f->param_types(), out_types = f->result_types();
  size_t n_in = in_types.size(), n_out = out_types.size();
  VjpPrograms p;
  p.wrt = wrt;
  for (size_t i = 0; i < wrt.size(); ++i)
    if (wrt[i]) p.wrt_index.push_back(static_cast<int32_t>(i));
  p.num_outputs = static_cast<int>(n_out);
  std::vector<TensorType> ct_types;
  for (const auto& t : out_types) {
    p.ct_outputs.push_back(is_floating(t.dtype));
    if (is_floating(t.dtype)) ct_types.push_back(t);
  }
  FunctionPtr joint;
  {
    TraceScope scope("vjp_" + f->name(), "vjp_programs");
    std::vector<Tensor> inputs = placeholders(in_types);
    std::vector<Tensor> cts = placeholders(ct_types);
    std::vector<Tensor> xs, targets;
    EnableGrad grad_on;
    for (size_t i = 0; i < n_in; ++i) {
      if (wrt[i] && is_floating(in_types[i].dtype)) {
        Tensor x = transform_input(inputs[i]);
        xs.push_back(x);
        targets.push_back(x);
      } else {
        xs.push_back(inputs[i]);
      }
    }
    std::vector<Tensor> outs = replay(*f, xs);
    std::vector<Tensor> roots, root_cts;
    for (size_t i = 0, k = 0; i < n_out; ++i) {
      if (!p.ct_outputs[i]) continue;
      if (outs[i].requires_grad()) {
        roots.push_back(outs[i]);
        root_cts.push_back(cts[k]);
      }
      ++k;
    }
    std::vector<Tensor> grads;
    if (!targets.empty())
      grads = roots.empty() ? std::vector<Tensor>()
                            : run_backward(roots, root_cts, targets, false, false, false);
    for (size_t i = grads.size(); i < targets.size(); ++i)
      grads.push_back(zeros_of(targets[i].impl()->type()));
    std::vector<Tensor> results = outs;
    for (const Tensor& g : grads) results.push_back(g);
    std::vector<GraphValue> vals;
    {
      NoGrad off;
      vals = values_in_frame(results);
    }
    joint = build_traced_function(scope.frame(), vals);
  }
  // Partition: values that depend on a cotangent belong to the backward program.
  const Function& J = *joint;
  if (static_cast<size_t>(J.num_params()) != n_in + ct_types.size())
    throw ValueError("[vjp] the joint program of @" + f->name() + " captured " +
                     std::to_string(static_cast<size_t>(J.num_params()) - n_in - ct_types.size()) +
                     " tensors from outside; differentiated programs must be closed");
  size_t n_ct = ct_types.size(), n_nodes = J.nodes().size();
  std::vector<char> bwd_node(n_nodes, 0);
  for (size_t i = n_in; i < n_in + n_ct; ++i) bwd_node[i] = 1;
  for (size_t i = static_cast<size_t>(J.num_params()); i < n_nodes; ++i)
    for (auto o : J.nodes()[i].operands)
      if (bwd_node[static_cast<size_t>(o.node)]) bwd_node[i] = 1;
  // Forward values the backward recomputes instead of saving (`recompute`): the primal inputs
  // (the backward call takes them from the forward call's operands), values computed from no
  // input at all by elementwise or layout ops (masks, broadcast constants: XLA folds them), and
  // broadcasts, reshapes, transposes and converts of such values.
  std::vector<char> recompute(n_nodes, 0), input_free(n_nodes, 0);
  for (size_t i = 0; i < n_in; ++i) recompute[i] = 1;
  for (size_t i = static_cast<size_t>(J.num_params()); i < n_nodes; ++i) {
    if (bwd_node[i]) continue;
    const Node& nd = J.nodes()[i];
    bool all_recompute = true, all_input_free = true;
    for (auto o : nd.operands) {
      all_recompute = all_recompute && recompute[static_cast<size_t>(o.node)];
      all_input_free = all_input_free && input_free[static_cast<size_t>(o.node)];
    }
    if (nd.op == OpCode::constant || nd.op == OpCode::iota ||
        (!nd.operands.empty() && all_input_free &&
         (has_flag(nd.op, kElementwise) || has_flag(nd.op, kLayout)))) {
      input_free[i] = recompute[i] = 1;
    } else if (has_flag(nd.op, kView) && all_recompute) {
      recompute[i] = 1;
    }
  }
  // What the backward reads from the forward: each forward operand of a backward node (and each
  // forward value that is a backward result) is recomputed from its leaves (primal inputs and
  // constants), or is a residual. A chain of views (broadcast, reshape, transpose, widening
  // convert) of a forward value is recomputed from the value it starts from, which is saved
  // instead: never more residuals, and never larger ones. `in_bwd` marks the forward nodes the
  // backward program recomputes.
  std::vector<ValueRef> residuals;
  std::map<std::pair<int32_t, int32_t>, size_t> saved;  // residual -> its place in `residuals`
  std::vector<char> in_bwd = recompute;
  auto need = [&](ValueRef v) {
    while (!bwd_node[static_cast<size_t>(v.node)] && !recompute[static_cast<size_t>(v.node)]) {
      const Node& nd = J.node(v.node);
      if (!has_flag(nd.op, kView) ||
          (nd.op == OpCode::convert && J.type(nd.operands[0]).bytes() > J.type(v).bytes())) {
        if (saved.emplace(std::make_pair(v.node, v.index), residuals.size()).second)
          residuals.push_back(v);
        return;
      }
      in_bwd[static_cast<size_t>(v.node)] = 1;
      v = nd.operands[0];
    }
  };
  for (size_t i = static_cast<size_t>(J.num_params()); i < n_nodes; ++i) {
    if (!bwd_node[i]) continue;
    for (auto o : J.nodes()[i].operands) need(o);
  }
  for (size_t r = n_out; r < J.results().size(); ++r) need(J.results()[r]);
  // Cheap arithmetic on values the backward has anyway: a residual made by an elementwise op
  // without transcendental work (add, mul, div, select, ...) from values that are saved or
  // recomputed already is recomputed too (one residual less, nothing saved in its place). Until
  // nothing changes: a value recomputed so can make another one recomputable.
  std::vector<char> dropped(residuals.size(), 0);
  // Whether the backward has `v` without a new residual: saved, recomputed, or cheap arithmetic
  // (views included) on such values (a few levels deep). `mark`: it will recompute it.
  std::function<bool(ValueRef, bool, int)> available = [&](ValueRef v, bool mark, int depth) {
    size_t n = static_cast<size_t>(v.node);
    if (in_bwd[n]) return true;
    auto it = saved.find({v.node, v.index});
    if (it != saved.end() && !dropped[it->second]) return true;
    const Node& nd = J.node(v.node);
    if (depth > 6 || !has_flag(nd.op, kCheapToRecompute)) return false;
    for (auto o : nd.operands)
      if (!available(o, mark, depth + 1)) return false;
    if (mark) in_bwd[n] = 1;
    return true;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < residuals.size(); ++k) {
      const Node& nd = J.node(residuals[k].node);
      if (dropped[k] || !has_flag(nd.op, kCheapToRecompute)) continue;
      bool ok = true;
      for (auto o : nd.operands) ok = ok && available(o, false, 0);
      if (!ok) continue;
      for (auto o : nd.operands) available(o, true, 0);
      dropped[k] = 1;
      in_bwd[static_cast<size_t>(residuals[k].node)] = 1;
      changed = true;
    }
  }
  {
    std::vector<ValueRef> kept;
    for (size_t k = 0; k < residuals.size(); ++k)
      if (!dropped[k]) kept.push_back(residuals[k]);
    residuals = std::move(kept);
  }
  // The primal inputs the backward reads: the leaves of what it recomputes, found by walking back
  // from its results to the residuals (and checking that it recomputes nothing else).
  {
    std::map<std::pair<int32_t, int32_t>, bool> is_residual;
    for (auto v : residuals) is_residual[{v.node, v.index}] = true;
    std::vector<char> reads(n_in, 0), walked(n_nodes, 0);
    std::vector<int32_t> stack;
    auto visit = [&](ValueRef v) {
      size_t n = static_cast<size_t>(v.node);
      if (walked[n] || is_residual.count({v.node, v.index})) return;
      walked[n] = 1;
      if (!bwd_node[n] && !in_bwd[n])
        throw ValueError("[vjp] internal error: the backward program of @" + f->name() +
                         " would recompute forward node %" + std::to_string(n) + " (" +
                         std::string(op_name(J.node(v.node).op)) + ")");
      if (n < n_in) reads[n] = 1;
      stack.push_back(v.node);
    };
    for (size_t r = n_out; r < J.results().size(); ++r) visit(J.results()[r]);
    while (!stack.empty()) {
      int32_t n = stack.back();
      stack.pop_back();
      for (auto o : J.node(n).operands) visit(o);
    }
    for (size_t i = 0; i < n_in; ++i)
      if (reads[i]) p.bwd_inputs.push_back(static_cast<int>(i));
  }
  std::vector<ValueRef> fwd_in, fwd_out, bwd_in, bwd_out;
  for (size_t i = 0; i < n_in; ++i) fwd_in.push_back({static_cast<int32_t>(i), 0});
  for (size_t r = 0; r < n_out; ++r) fwd_out.push_back(J.results()[r]);
  for (auto v : residuals) fwd_out.push_back(v);
  bwd_in = residuals;
  for (int i : p.bwd_inputs) bwd_in.push_back({static_cast<int32_t>(i), 0});
  for (size_t i = n_in; i < n_in + n_ct; ++i) bwd_in.push_back({static_cast<int32_t>(i), 0});
  for (size_t r = n_out; r < J.results().size(); ++r) bwd_out.push_back(J.results()[r]);
  std::vector<ValueRef> all_in;
  for (int i = 0; i < J.num_params(); ++i) all_in.push_back({i, 0});
  p.joint = extract_function(J, f->name() + "_vjp", all_in, bwd_out);
  p.fwd = extract_function(J, f->name() + "_fwd", fwd_in, fwd_out);
  p.bwd = extract_function(J, f->name() + "_bwd", bwd_in, bwd_out);
  p.num_residuals = static_cast<int>(residuals.size());
  // (The programs live as long as the process, in g_vjp_cache: their call attributes too.)
  p.fwd_call = SharedAttrs::permanent(CallAttrs{p.fwd});
  p.bwd_call = SharedAttrs::permanent(CallAttrs{p.bwd});
  std::lock_guard<std::mutex> lock(g_mu);
  return g_vjp_cache.emplace(std::make_pair(f->hash(), wrt), std::move(p)).first->second;
}

FunctionPtr jvp_program(const FunctionPtr& f) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_jvp_cache.find(f->hash());
    if (it != g_jvp_cache.end()) return it->second;
  }
  std::vector<TensorType> in_types = f->param_types();
  std::vector<TensorType> tan_types;
  for (const auto& t : in_types)
    if (is_floating(t.dtype)) tan_types.push_back(t);
  FunctionPtr prog;
  {
    TraceScope scope("jvp_" + f->name(), "jvp_program");
    std::vector<Tensor> inputs = placeholders(in_types);
    std::vector<Tensor> tans = placeholders(tan_types);
    EnableGrad grad_on;
    std::vector<Tensor> xs, diff_in, diff_tan;
    for (size_t i = 0, k = 0; i < in_types.size(); ++i) {
      if (is_floating(in_types[i].dtype)) {
        Tensor x = transform_input(inputs[i]);
        xs.push_back(x);
        diff_in.push_back(x);
        diff_tan.push_back(tans[k++]);
      } else {
        xs.push_back(inputs[i]);
      }
    }
    std::vector<Tensor> outs = replay(*f, xs);
    std::vector<Tensor> out_tans = run_forward(diff_in, diff_tan, outs);
    std::vector<Tensor> results;
    for (const Tensor& o : outs) results.push_back(o);
    for (size_t i = 0; i < outs.size(); ++i)
      if (is_floating(outs[i].dtype())) results.push_back(out_tans[i]);
    std::vector<GraphValue> vals;
    {
      NoGrad off;
      vals = values_in_frame(results);
    }
    prog = build_traced_function(scope.frame(), vals);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  return g_jvp_cache.emplace(f->hash(), prog).first->second;
}

namespace {
std::vector<bool> float_mask(std::span<const Tensor> xs, size_t from) {
  std::vector<bool> m;
  for (size_t i = from; i < xs.size(); ++i) m.push_back(is_floating(xs[i].dtype()));
  return m;
}
// Cotangents for the floating outputs (zeros where undefined).
std::vector<Tensor> float_cts(std::span<const Tensor> outs, const std::vector<Tensor>& cts) {
  std::vector<Tensor> r;
  for (size_t i = 0; i < outs.size(); ++i)
    if (is_floating(outs[i].dtype()))
      r.push_back(cts[i].defined() ? cts[i] : zeros_of(outs[i].impl()->type()));
  return r;
}
// Spreads cotangents of the masked inputs back over all inputs (offset: leading non-operands).
std::vector<Tensor> spread(const std::vector<bool>& mask, const std::vector<Tensor>& g,
                           size_t offset) {
  std::vector<Tensor> r(offset);
  size_t k = 0;
  for (bool m : mask) r.push_back(m ? g[k++] : Tensor());
  return r;
}
}  // namespace

std::vector<Tensor> call_vjp(const OpContext& c, const std::vector<Tensor>& cts) {
  const FunctionPtr& fn = c.attr<CallAttrs>().callee;
  std::vector<bool> wrt = float_mask(c.inputs, 0);
  const VjpPrograms& p = vjp_programs(fn, wrt);
  std::vector<Tensor> in(c.inputs.begin(), c.inputs.end());
  for (const Tensor& t : float_cts(c.outputs, cts)) in.push_back(t);
  std::vector<Tensor> g = apply_primitive(OpCode::call, CallAttrs{p.joint}, in);
  return spread(wrt, g, 0);
}

std::vector<Tensor> call_jvp(const OpContext& c, const std::vector<Tensor>& tangents) {
  const FunctionPtr& fn = c.attr<CallAttrs>().callee;
  std::vector<Tensor> in(c.inputs.begin(), c.inputs.end());
  for (size_t i = 0; i < c.inputs.size(); ++i)
    if (is_floating(c.inputs[i].dtype()))
      in.push_back(tangents[i].defined() ? tangents[i] : zeros_of(c.inputs[i].impl()->type()));
  std::vector<Tensor> r = apply_primitive(OpCode::call, CallAttrs{jvp_program(fn)}, in);
  std::vector<Tensor> out;
  size_t k = c.outputs.size();
  for (const Tensor& o : c.outputs) out.push_back(is_floating(o.dtype()) ? r[k++] : Tensor());
  return out;
}

std::vector<Tensor> cond_vjp(const OpContext& c, const std::vector<Tensor>& cts) {
  const auto& branches = c.attr<CondAttrs>().branches;
  std::vector<bool> wrt = float_mask(c.inputs, 1);
  CondAttrs grads_attrs;
  for (const auto& b : branches) grads_attrs.branches.push_back(vjp_programs(b, wrt).joint);
  std::vector<Tensor> in(c.inputs.begin(), c.inputs.end());  // index, operands
  for (const Tensor& t : float_cts(c.outputs, cts)) in.push_back(t);
  std::vector<Tensor> g = apply_primitive(OpCode::cond, grads_attrs, in);
  return spread(wrt, g, 1);
}

std::vector<Tensor> cond_jvp(const OpContext& c, const std::vector<Tensor>& tangents) {
  const auto& branches = c.attr<CondAttrs>().branches;
  CondAttrs attrs;
  for (const auto& b : branches) attrs.branches.push_back(jvp_program(b));
  std::vector<Tensor> in(c.inputs.begin(), c.inputs.end());
  for (size_t i = 1; i < c.inputs.size(); ++i)
    if (is_floating(c.inputs[i].dtype()))
      in.push_back(tangents[i].defined() ? tangents[i] : zeros_of(c.inputs[i].impl()->type()));
  std::vector<Tensor> r = apply_primitive(OpCode::cond, attrs, in);
  std::vector<Tensor> out;
  size_t k = c.outputs.size();
  for (const Tensor& o : c.outputs) out.push_back(is_floating(o.dtype()) ? r[k++] : Tensor());
  return out;
}

// scan's VJP: a forward scan that also emits the carry each iteration starts from, then a scan in
// the other direction whose body is the joint VJP program of the body.
std::vector<Tensor> scan_vjp(const OpContext& c, const std::vector<Tensor>& cts) {
  const ScanAttrs& a = c.attr<ScanAttrs>();
  const Function& body = *a.body;
  size_t nc = static_cast<size_t>(a.num_carry), nin = c.inputs.size(), nx = nin - nc;
  std::vector<TensorType> bp = body.param_types(), br = body.result_types();
  size_t ny = br.size() - nc;
  // 1. Carry history.
  Builder hb(body.name() + "_hist");
  std::vector<ValueRef> ps;
  for (const auto& t : bp) ps.push_back(hb.param(t));
  std::vector<ValueRef> outs = hb.add_multi(OpCode::call, ps, CallAttrs{a.body});
  for (size_t i = 0; i < nc; ++i) outs.push_back(ps[i]);
  ScanAttrs hist_attrs = a;
  hist_attrs.body = hb.build(outs);
  std::vector<Tensor> fwd = apply_primitive(OpCode::scan, hist_attrs, {c.inputs.begin(), c.inputs.end()});
  std::vector<Tensor> history(fwd.begin() + static_cast<long>(nc + ny), fwd.end());
  // 2. The backward body: (ct_c..., x..., c..., ct_y(float)...) -> (ct_c_prev..., ct_x(float)...).
  std::vector<bool> wrt;
  for (const auto& t : bp) wrt.push_back(is_floating(t.dtype));
  const VjpPrograms& p = vjp_programs(a.body, wrt);
  Builder bb(body.name() + "_bwd_scan");
  std::vector<ValueRef> ct_c, xv, cv, ct_y;
  for (size_t i = 0; i < nc; ++i) ct_c.push_back(bb.param(bp[i]));
  for (size_t i = 0; i < nx; ++i) xv.push_back(bb.param(bp[nc + i]));
  for (size_t i = 0; i < nc; ++i) cv.push_back(bb.param(bp[i]));
  for (size_t j = 0; j < ny; ++j)
    if (is_floating(br[nc + j].dtype)) ct_y.push_back(bb.param(br[nc + j]));
  std::vector<ValueRef> jargs = cv;
  for (auto v : xv) jargs.push_back(v);
  for (size_t i = 0; i < nc; ++i)
    if (is_floating(br[i].dtype)) jargs.push_back(ct_c[i]);
  for (auto v : ct_y) jargs.push_back(v);
  std::vector<ValueRef> g = bb.add_multi(OpCode::call, jargs, CallAttrs{p.joint});
  std::vector<ValueRef> res;
  size_t k = 0;
  for (size_t i = 0; i < nc; ++i) {
    if (wrt[i]) {
      res.push_back(g[k++]);
    } else {
      res.push_back(bb.constant(Literal::zeros(bp[i])));
    }
  }
  for (size_t i = 0; i < nx; ++i)
    if (wrt[nc + i]) res.push_back(g[k++]);
  ScanAttrs back{bb.build(res), a.length, static_cast<int64_t>(nc), !a.reverse};
  // 3. Run it from the final carry's cotangent.
  std::vector<Tensor> in;
  for (size_t i = 0; i < nc; ++i)
    in.push_back(cts[i].defined() ? cts[i] : zeros_of(c.outputs[i].impl()->type()));
  for (size_t i = 0; i < nx; ++i) in.push_back(c.inputs[nc + i]);
  for (const Tensor& h : history) in.push_back(h);
  for (size_t j = 0; j < ny; ++j)
    if (is_floating(br[nc + j].dtype))
      in.push_back(cts[nc + j].defined() ? cts[nc + j] : zeros_of(c.outputs[nc + j].impl()->type()));
  std::vector<Tensor> r = apply_primitive(OpCode::scan, back, in);
  std::vector<Tensor> result;
  for (size_t i = 0; i < nc; ++i) result.push_back(wrt[i] ? r[i] : Tensor());
  k = nc;
  for (size_t i = 0; i < nx; ++i) result.push_back(wrt[nc + i] ? r[k++] : Tensor());
  return result;
}

}  // namespace lazax::autodiff
