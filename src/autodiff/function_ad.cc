#include "lazax/autodiff/function_ad.h"

#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <tuple>

#include "engine.h"
#include "lazax/autodiff/batching.h"
#include "lazax/autodiff/remat.h"
#include "lazax/autodiff/rules.h"
#include "lazax/autodiff/tape.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/builder.h"
#include "lazax/ir/extract.h"
#include "lazax/trace/call_site.h"
#include "lazax/trace/scope.h"
#include "lazax/trace/trace_stack.h"
#include "max_flow.h"

namespace lazax::autodiff {
namespace {

std::vector<Tensor> placeholders(const std::vector<TensorType>& types) {
  std::vector<Tensor> out;
  out.reserve(types.size());
  for (const auto& t : types) out.push_back(make_pending(add_trace_param(t)));
  return out;
}

std::vector<GraphValue> values_in_frame(const std::vector<Tensor>& ts) {
  std::vector<GraphValue> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(operand(t, "trace"));
  return out;
}

std::mutex g_mu;
// Keyed by the function's hash, wrt, and the remat policy's name ("" without one) and
// prevent_cse.
using VjpKey = std::tuple<uint64_t, std::vector<bool>, std::string, bool>;
std::map<VjpKey, VjpPrograms> g_vjp_cache;
std::map<uint64_t, FunctionPtr> g_jvp_cache;

}  // namespace

std::vector<Tensor> replay(const Function& f, const std::vector<Tensor>& args) {
  if (static_cast<int>(args.size()) != f.num_params())
    throw ValueError("[replay] @" + f.name() + " takes " + std::to_string(f.num_params()) +
                     " arguments, got " + std::to_string(args.size()));
  std::vector<std::vector<Tensor>> values(f.nodes().size());
  for (int i = 0; i < f.num_params(); ++i) {
    if (args[static_cast<size_t>(i)].impl()->type() != f.param_type(i)) {
      throw ValueError("[replay] argument " + std::to_string(i) + " of @" + f.name() +
                       " should be " + f.param_type(i).str() + ", got " +
                       args[static_cast<size_t>(i)].type_str());
    }
    values[static_cast<size_t>(i)] = {args[static_cast<size_t>(i)]};
  }
  for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    std::vector<Tensor> in;
    for (auto o : n.operands)
      in.push_back(values[static_cast<size_t>(o.node)][static_cast<size_t>(o.index)]);
    ProfilerScope scope = ProfilerScope::restore(n.debug.scope);
    InheritedCallSite site(n.debug.call_site);
    values[i] = record_op(n.op, in, n.attrs);
  }
  std::vector<Tensor> out;
  for (auto r : f.results())
    out.push_back(values[static_cast<size_t>(r.node)][static_cast<size_t>(r.index)]);
  return out;
}

namespace {

// The joint program of a function: parameters are its inputs, then the cotangents of its
// floating outputs; results are its outputs, then the cotangents of the inputs it is
// differentiated with respect to (forward and backward in one program).
struct JointProgram {
  FunctionPtr program;
  size_t num_inputs = 0;
  size_t num_cotangents = 0;
  size_t num_outputs = 0;

  const Function& fn() const { return *program; }
  size_t num_params() const { return num_inputs + num_cotangents; }
  // The results that are input cotangents (what the backward program returns).
  std::span<const ValueRef> input_cotangents() const {
    return std::span<const ValueRef>(program->results()).subspan(num_outputs);
  }
};

// Traces `f` replayed with the tape, then the tape walked backwards from the cotangents of its
// floating outputs to the inputs `p.wrt` flags.
JointProgram trace_joint(const Function& f, const VjpPrograms& p) {
  std::vector<TensorType> in_types = f.param_types(), out_types = f.result_types();
  std::vector<TensorType> ct_types;
  for (size_t i = 0; i < out_types.size(); ++i)
    if (p.ct_outputs[i]) ct_types.push_back(out_types[i]);
  JointProgram joint;
  joint.num_inputs = in_types.size();
  joint.num_cotangents = ct_types.size();
  joint.num_outputs = out_types.size();
  TraceScope scope("vjp_" + f.name(), "vjp_programs");
  std::vector<Tensor> inputs = placeholders(in_types);
  std::vector<Tensor> cts = placeholders(ct_types);
  std::vector<Tensor> args, targets;  // targets: the differentiated inputs
  EnableGrad grad_on;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (p.wrt[i] && is_floating(in_types[i].dtype)) {
      Tensor x = transform_input(inputs[i]);
      args.push_back(x);
      targets.push_back(x);
    } else {
      args.push_back(inputs[i]);
    }
  }
  std::vector<Tensor> outs = replay(f, args);
  std::vector<Tensor> roots, root_cts;  // the outputs that depend on a target, and their cotangents
  for (size_t i = 0, k = 0; i < outs.size(); ++i) {
    if (!p.ct_outputs[i]) continue;
    if (outs[i].requires_grad()) {
      roots.push_back(outs[i]);
      root_cts.push_back(cts[k]);
    }
    ++k;
  }
  std::vector<Tensor> grads;
  if (!targets.empty() && !roots.empty()) grads = run_backward(roots, root_cts, targets, {});
  for (size_t i = grads.size(); i < targets.size(); ++i)
    grads.push_back(zeros_of(targets[i].impl()->type()));
  std::vector<Tensor> results = outs;
  for (const Tensor& g : grads) results.push_back(g);
  std::vector<GraphValue> values;
  {
    NoGrad off;
    values = values_in_frame(results);
  }
  joint.program = build_traced_function(scope.frame(), values);
  const size_t captured = static_cast<size_t>(joint.program->num_params()) - joint.num_params();
  if (captured != 0) {
    throw ValueError("[vjp] the joint program of @" + f.name() + " captured " +
                     std::to_string(captured) +
                     " tensors from outside; differentiated programs must be closed");
  }
  return joint;
}

// How the joint program splits, node by node, into a forward and a backward program.
struct Partition {
  std::vector<char> backward;       // depends on a cotangent: a node of the backward program only
  std::vector<char> recomputable;   // a forward value the backward can make from primal inputs
                                    // and constants alone (cheap: see mark_recomputable)
  std::vector<char> recomputed;     // a forward node the backward program recomputes
  std::vector<ValueRef> residuals;  // forward values the forward program saves for the backward
  std::map<std::pair<int32_t, int32_t>, size_t> residual_place;  // residual -> its index above
  std::vector<int> inputs_read;         // the primal inputs the backward program reads, ascending
  const RematPolicy* policy = nullptr;  // remat: what may be saved (null: anything)
};

// Values that depend on a cotangent belong to the backward program.
std::vector<char> mark_backward(const JointProgram& joint) {
  const Function& fn = joint.fn();
  std::vector<char> backward(fn.nodes().size(), 0);
  for (size_t i = joint.num_inputs; i < joint.num_params(); ++i) backward[i] = 1;
  for (size_t i = joint.num_params(); i < fn.nodes().size(); ++i)
    for (ValueRef o : fn.nodes()[i].operands)
      if (backward[static_cast<size_t>(o.node)]) backward[i] = 1;
  return backward;
}

// Forward values the backward recomputes instead of saving: the primal inputs (the backward call
// takes them from the forward call's operands), values computed from no input at all by
// elementwise or layout ops (masks, broadcast constants: XLA folds them), and views
// (ir/op.h kView) of such values.
std::vector<char> mark_recomputable(const JointProgram& joint, const std::vector<char>& backward) {
  const Function& fn = joint.fn();
  const size_t num_nodes = fn.nodes().size();
  std::vector<char> recomputable(num_nodes, 0), from_no_input(num_nodes, 0);
  for (size_t i = 0; i < joint.num_inputs; ++i) recomputable[i] = 1;
  for (size_t i = joint.num_params(); i < num_nodes; ++i) {
    if (backward[i]) continue;
    const Node& node = fn.nodes()[i];
    bool operands_recomputable = true, operands_from_no_input = true;
    for (ValueRef o : node.operands) {
      operands_recomputable = operands_recomputable && recomputable[static_cast<size_t>(o.node)];
      operands_from_no_input = operands_from_no_input && from_no_input[static_cast<size_t>(o.node)];
    }
    if (node.op == OpCode::constant || node.op == OpCode::iota ||
        (!node.operands.empty() && operands_from_no_input &&
         (has_flag(node.op, kElementwise) || has_flag(node.op, kLayout)))) {
      from_no_input[i] = recomputable[i] = 1;
    } else if (has_flag(node.op, kView) && operands_recomputable) {
      recomputable[i] = 1;
    }
  }
  return recomputable;
}

// The backward reads the forward value `v`: it recomputes it, or `v` becomes a residual. A chain
// of views (broadcast, reshape, transpose, widening convert) of a forward value is recomputed from
// the value it starts from, which is saved instead: never more residuals, and never larger ones.
// Under a remat policy, a value the policy does not let the forward save is recomputed by the
// backward from its operands, which the backward requires in turn.
void require(const Function& fn, Partition& part, ValueRef v) {
  std::vector<ValueRef> pending{v};
  while (!pending.empty()) {
    v = pending.back();
    pending.pop_back();
    while (!part.backward[static_cast<size_t>(v.node)] &&
           !part.recomputable[static_cast<size_t>(v.node)] &&
           !part.recomputed[static_cast<size_t>(v.node)]) {
      const Node& node = fn.node(v.node);
      const bool narrowing_convert =
          node.op == OpCode::convert && fn.type(node.operands[0]).bytes() > fn.type(v).bytes();
      // (Without a policy a name means nothing: the value it names is required instead, so that
      // naming a value never adds a residual. A policy can ask for that too.)
      const bool plain_name =
          node.op == OpCode::checkpoint_name && (!part.policy || part.policy->names_transparent);
      if ((!has_flag(node.op, kView) && !plain_name) || narrowing_convert) {
        if (part.policy && !part.policy->saveable(fn, node)) {
          part.recomputed[static_cast<size_t>(v.node)] = 1;
          for (ValueRef o : node.operands) pending.push_back(o);
          break;
        }
        if (part.residual_place.emplace(std::make_pair(v.node, v.index), part.residuals.size())
                .second)
          part.residuals.push_back(v);
        break;
      }
      part.recomputed[static_cast<size_t>(v.node)] = 1;
      v = node.operands[0];
    }
  }
}

// Whether the backward has `v` without a new residual: saved (and not dropped), recomputed, or
// cheap arithmetic (ir/op.h kCheapToRecompute) on such values, a few levels deep. With `mark`,
// the backward will recompute what that takes.
bool backward_has(const Function& fn, Partition& part, const std::vector<char>& dropped, ValueRef v,
                  bool mark, int depth) {
  const size_t n = static_cast<size_t>(v.node);
  if (part.recomputed[n]) return true;
  auto it = part.residual_place.find({v.node, v.index});
  if (it != part.residual_place.end() && !dropped[it->second]) return true;
  const Node& node = fn.node(v.node);
  if (depth > 6 || !has_flag(node.op, kCheapToRecompute)) return false;
  for (ValueRef o : node.operands)
    if (!backward_has(fn, part, dropped, o, mark, depth + 1)) return false;
  if (mark) part.recomputed[n] = 1;
  return true;
}

// Cheap arithmetic on values the backward has anyway: a residual made by a kCheapToRecompute op
// (add, mul, div, select, ...) from values that are saved or recomputed already is recomputed
// too (one residual less, nothing saved in its place). Until nothing changes: a value recomputed
// so can make another one recomputable.
void recompute_cheap_residuals(const Function& fn, Partition& part) {
  std::vector<char> dropped(part.residuals.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < part.residuals.size(); ++k) {
      const Node& node = fn.node(part.residuals[k].node);
      if (dropped[k] || !has_flag(node.op, kCheapToRecompute)) continue;
      bool has_operands = true;
      for (ValueRef o : node.operands)
        has_operands = has_operands && backward_has(fn, part, dropped, o, false, 0);
      if (!has_operands) continue;
      for (ValueRef o : node.operands) backward_has(fn, part, dropped, o, true, 0);
      dropped[k] = 1;
      part.recomputed[static_cast<size_t>(part.residuals[k].node)] = 1;
      changed = true;
    }
  }
  std::vector<ValueRef> kept;
  for (size_t k = 0; k < part.residuals.size(); ++k)
    if (!dropped[k]) kept.push_back(part.residuals[k]);
  part.residuals = std::move(kept);
  part.residual_place.clear();
  for (size_t k = 0; k < part.residuals.size(); ++k)
    part.residual_place[{part.residuals[k].node, part.residuals[k].index}] = k;
}

// The primal inputs the backward reads: the leaves of what it recomputes, found by walking back
// from its results to the residuals (and checking that it recomputes nothing else).
std::vector<int> find_inputs_read(const JointProgram& joint, const Partition& part,
                                  const std::string& name) {
  const Function& fn = joint.fn();
  std::vector<char> read(joint.num_inputs, 0), walked(fn.nodes().size(), 0);
  std::vector<int32_t> stack;
  auto visit = [&](ValueRef v) {
    const size_t n = static_cast<size_t>(v.node);
    if (walked[n] || part.residual_place.count({v.node, v.index})) return;
    walked[n] = 1;
    if (!part.backward[n] && !part.recomputed[n]) {
      throw ValueError("[vjp] internal error: the backward program of @" + name +
                       " would recompute forward node %" + std::to_string(n) + " (" +
                       std::string(op_name(fn.node(v.node).op)) + ")");
    }
    if (n < joint.num_inputs) read[n] = 1;
    stack.push_back(v.node);
  };
  for (ValueRef r : joint.input_cotangents()) visit(r);
  while (!stack.empty()) {
    int32_t n = stack.back();
    stack.pop_back();
    for (ValueRef o : fn.node(n).operands) visit(o);
  }
  std::vector<int> inputs_read;
  for (size_t i = 0; i < joint.num_inputs; ++i)
    if (read[i]) inputs_read.push_back(static_cast<int>(i));
  return inputs_read;
}

// Whether the backward may recompute node `n` under memory_budget: never a matmul, a random
// draw or control flow.
bool never_recomputed(const Node& n) {
  return n.op == OpCode::dot_general || n.op == OpCode::random_bits || has_flag(n.op, kHasBodies);
}

// What the forward may save under memory_budget at exchange rate `lambda` (recomputed elements
// per saved byte): a minimum cut over the joint program (AOTAutograd's partitioner idea). Each
// forward node v is two vertices, v_in -> v_out, the edge costing lambda * v's bytes (v saved);
// source -> v_in costs the elements v computes (v recomputed by the backward), infinite for what
// is never recomputed; v_out -> w_in is infinite for each reader w; backward nodes (and results
// the backward returns) are tied to the sink. A cut separates what only the forward computes
// (saved where the backward reads it) from what the backward has (recomputed), at the least
// lambda * saved bytes + recomputed elements. Views cost nothing to recompute.
std::vector<char> saveable_by_cut(const JointProgram& joint, const std::vector<char>& backward,
                                  double lambda) {
  const Function& fn = joint.fn();
  const auto n = static_cast<int32_t>(fn.nodes().size());
  const int32_t source = 2 * n, sink = 2 * n + 1;
  MaxFlow g(2 * n + 2);
  auto in = [](int32_t v) { return 2 * v; };
  auto out = [](int32_t v) { return 2 * v + 1; };
  for (int32_t v = static_cast<int32_t>(joint.num_params()); v < n; ++v) {
    const Node& node = fn.node(v);
    for (ValueRef o : node.operands) g.add_edge(out(o.node), in(v), MaxFlow::kInf);
    if (backward[static_cast<size_t>(v)]) {
      g.add_edge(in(v), sink, MaxFlow::kInf);
      continue;
    }
    double bytes = 0, elements = 0;
    for (const TensorType& t : node.outputs) {
      bytes += static_cast<double>(t.bytes());
      elements += static_cast<double>(t.numel());
    }
    g.add_edge(in(v), out(v), lambda * bytes);
    const double recompute = never_recomputed(node)     ? MaxFlow::kInf
                             : has_flag(node.op, kView) ? 0.0
                                                        : elements;
    g.add_edge(source, in(v), recompute);
  }
  for (ValueRef r : joint.input_cotangents()) g.add_edge(out(r.node), sink, MaxFlow::kInf);
  g.run(source, sink);
  std::vector<char> saveable(static_cast<size_t>(n), 1);
  for (int32_t v = 0; v < n; ++v) saveable[static_cast<size_t>(v)] = g.source_side()[in(v)];
  return saveable;
}

Partition partition(const JointProgram& joint, const std::string& name, const RematPolicy* policy);

int64_t residual_bytes(const Function& fn, const Partition& part) {
  int64_t bytes = 0;
  for (ValueRef r : part.residuals) bytes += static_cast<int64_t>(fn.type(r).bytes());
  return bytes;
}

// memory_budget: the cut with the least recomputation whose residuals fit the budget. The saved
// bytes fall as lambda grows, so lambda is searched by bisection over a geometric range.
Partition partition_within_budget(const JointProgram& joint, const std::string& name,
                                  int64_t budget) {
  const Function& fn = joint.fn();
  const std::vector<char> backward = mark_backward(joint);
  std::vector<char> saveable;
  RematPolicy chosen;
  chosen.name = "budget";
  chosen.saveable = [&](const Function&, const Node& node) {
    return saveable[static_cast<size_t>(&node - fn.nodes().data())] != 0;
  };
  auto at = [&](int k) {  // lambda = 2^(k / 2), 2^-30 .. 2^50
    saveable = saveable_by_cut(joint, backward, std::exp2(static_cast<double>(k) / 2));
    return partition(joint, name, &chosen);
  };
  int lo = -60, hi = 100;
  Partition part = at(hi);
  if (const int64_t least = residual_bytes(fn, part); least > budget) {
    throw ValueError("[memory_budget] the backward of @" + name + " keeps " +
                     std::to_string(least) +
                     " bytes at least (matmuls, random draws and control "
                     "flow are never recomputed), over the budget of " +
                     std::to_string(budget) + "; raise the budget to at least that");
  }
  if (Partition all = at(lo); residual_bytes(fn, all) <= budget) return all;
  while (hi - lo > 1) {  // bytes(lo) > budget >= bytes(hi)
    const int mid = (lo + hi) / 2;
    Partition p = at(mid);
    if (residual_bytes(fn, p) <= budget) {
      hi = mid;
      part = std::move(p);
    } else {
      lo = mid;
    }
  }
  return part;
}

// Decides what the forward program saves for the backward (DESIGN.md §3b): what the backward
// reads of the forward is recomputed when that is cheap, and saved otherwise.
Partition partition(const JointProgram& joint, const std::string& name, const RematPolicy* policy) {
  const Function& fn = joint.fn();
  Partition part;
  part.policy = policy;
  part.backward = mark_backward(joint);
  part.recomputable = mark_recomputable(joint, part.backward);
  part.recomputed = part.recomputable;
  for (size_t i = joint.num_params(); i < fn.nodes().size(); ++i) {
    if (!part.backward[i]) continue;
    for (ValueRef o : fn.nodes()[i].operands) require(fn, part, o);
  }
  for (ValueRef r : joint.input_cotangents()) require(fn, part, r);
  recompute_cheap_residuals(fn, part);
  part.inputs_read = find_inputs_read(joint, part, name);
  return part;
}

ValueRef param_ref(size_t i) { return {static_cast<int32_t>(i), 0}; }

// The joint, forward and backward programs cut out of the joint program as `part` says.
void extract_programs(const std::string& name, const JointProgram& joint, const Partition& part,
                      VjpPrograms& p) {
  const Function& fn = joint.fn();
  std::span<const ValueRef> outputs(fn.results().data(), joint.num_outputs);
  std::vector<ValueRef> fwd_params, fwd_results(outputs.begin(), outputs.end());
  for (size_t i = 0; i < joint.num_inputs; ++i) fwd_params.push_back(param_ref(i));
  for (ValueRef v : part.residuals) fwd_results.push_back(v);
  std::vector<ValueRef> bwd_params = part.residuals;
  for (int i : part.inputs_read) bwd_params.push_back(param_ref(static_cast<size_t>(i)));
  for (size_t i = joint.num_inputs; i < joint.num_params(); ++i) bwd_params.push_back(param_ref(i));
  std::span<const ValueRef> input_cts = joint.input_cotangents();
  std::vector<ValueRef> all_params, bwd_results(input_cts.begin(), input_cts.end());
  for (size_t i = 0; i < joint.num_params(); ++i) all_params.push_back(param_ref(i));
  p.joint = extract_function(fn, name + "_vjp", all_params, bwd_results);
  p.fwd = extract_function(fn, name + "_fwd", fwd_params, fwd_results);
  p.bwd = extract_function(fn, name + "_bwd", bwd_params, bwd_results);
  p.num_residuals = static_cast<int>(part.residuals.size());
  p.bwd_inputs = part.inputs_read;
}

// `f` rebuilt with its parameters passed through `on_params` (which adds nodes reading them and
// returns what the body reads in their place) and its results through `on_results`.
using Rewrite = std::function<std::vector<ValueRef>(Builder&, std::vector<ValueRef>)>;
FunctionPtr rewrite_edges(const FunctionPtr& f, const Rewrite& on_params,
                          const Rewrite& on_results) {
  Builder b(f->name());
  std::vector<ValueRef> params;
  params.reserve(static_cast<size_t>(f->num_params()));
  for (int i = 0; i < f->num_params(); ++i) params.push_back(b.param(f->param_type(i)));
  params = on_params(b, std::move(params));
  std::vector<std::vector<ValueRef>> values(f->nodes().size());
  for (int i = 0; i < f->num_params(); ++i)
    values[static_cast<size_t>(i)] = {params[static_cast<size_t>(i)]};
  for (size_t i = static_cast<size_t>(f->num_params()); i < f->nodes().size(); ++i) {
    Node n = f->nodes()[i];
    for (ValueRef& o : n.operands)
      o = values[static_cast<size_t>(o.node)][static_cast<size_t>(o.index)];
    values[i] = b.add_node(std::move(n));
  }
  std::vector<ValueRef> results;
  for (ValueRef r : f->results())
    results.push_back(values[static_cast<size_t>(r.node)][static_cast<size_t>(r.index)]);
  return b.build(on_results(b, std::move(results)));
}

std::vector<ValueRef> unchanged(Builder&, std::vector<ValueRef> v) { return v; }

// `f` reading its parameters through one optimization_barrier: values it computes from them are
// then not the same values as the forward's for CSE (remat's prevent_cse).
FunctionPtr with_input_barrier(const FunctionPtr& f) {
  if (f->num_params() == 0) return f;
  return rewrite_edges(
      f,
      [](Builder& b, std::vector<ValueRef> params) {
        return b.add_multi(OpCode::optimization_barrier, std::move(params));
      },
      unchanged);
}

// Offload: the forward copies the offloaded residuals to host memory as it returns them, the
// backward copies them back to the device before it reads them.
void offload_residuals(VjpPrograms& p) {
  auto copy = [](Builder& b, ValueRef v, MemoryKind kind) {
    return b.add(OpCode::copy_to_memory_kind, {v}, MemoryKindAttrs{kind});
  };
  p.fwd = rewrite_edges(p.fwd, unchanged, [&](Builder& b, std::vector<ValueRef> results) {
    for (size_t k = 0; k < p.offloaded.size(); ++k) {
      if (p.offloaded[k]) {
        ValueRef& r = results[static_cast<size_t>(p.num_outputs) + k];
        r = copy(b, r, MemoryKind::host);
      }
    }
    return results;
  });
  p.bwd = rewrite_edges(
      p.bwd,
      [&](Builder& b, std::vector<ValueRef> params) {
        for (size_t k = 0; k < p.offloaded.size(); ++k)
          if (p.offloaded[k]) params[k] = copy(b, params[k], MemoryKind::device);
        return params;
      },
      unchanged);
}

}  // namespace

const VjpPrograms& vjp_programs(const FunctionPtr& f, const std::vector<bool>& wrt,
                                const RematPolicy* policy, bool prevent_cse) {
  std::string policy_key;  // the policy's name, and whether names are transparent to it
  if (policy) policy_key = policy->name + (policy->names_transparent ? "|names_transparent" : "");
  VjpKey key{f->hash(), wrt, policy_key, policy && prevent_cse};
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_vjp_cache.find(key);
    if (it != g_vjp_cache.end()) return it->second;
  }
  VjpPrograms p = build_vjp_programs(f, wrt, policy, prevent_cse);
  // (The programs live as long as the process, in g_vjp_cache: their call attributes too.)
  p.fwd_call = SharedAttrs::permanent(CallAttrs{p.fwd});
  p.bwd_call = SharedAttrs::permanent(CallAttrs{p.bwd});
  std::lock_guard<std::mutex> lock(g_mu);
  return g_vjp_cache.emplace(std::move(key), std::move(p)).first->second;
}

VjpPrograms build_vjp_programs(const FunctionPtr& f, const std::vector<bool>& wrt,
                               const RematPolicy* policy, bool prevent_cse) {
  metrics::counter("VjpProgramBuilds").add();
  metrics::ScopedTimer timed(metrics::timer("VjpBuildTime"));
  VjpPrograms p;
  p.fn = f;
  p.wrt = wrt;
  for (size_t i = 0; i < wrt.size(); ++i)
    if (wrt[i]) p.wrt_index.push_back(static_cast<int32_t>(i));
  p.num_outputs = static_cast<int>(f->result_types().size());
  for (const TensorType& t : f->result_types()) p.ct_outputs.push_back(is_floating(t.dtype));
  JointProgram joint = trace_joint(*f, p);
  Partition part = policy && policy->budget_bytes >= 0
                       ? partition_within_budget(joint, f->name(), policy->budget_bytes)
                       : partition(joint, f->name(), policy);
  extract_programs(f->name(), joint, part, p);
  p.offloaded.assign(part.residuals.size(), false);
  bool any_offloaded = false;
  for (size_t k = 0; policy && policy->offload && k < part.residuals.size(); ++k) {
    p.offloaded[k] = policy->offload(joint.fn(), joint.fn().node(part.residuals[k].node));
    any_offloaded = any_offloaded || p.offloaded[k];
  }
  if (any_offloaded) offload_residuals(p);
  if (policy && prevent_cse) p.bwd = with_input_barrier(p.bwd);
  return p;
}

void clear_program_caches() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_vjp_cache.clear();
  g_jvp_cache.clear();
  clear_batched_call_cache();
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
    results.reserve(2 * outs.size());
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
  std::vector<Tensor> g = record_op(OpCode::call, in, CallAttrs{p.joint});
  return spread(wrt, g, 0);
}

std::vector<Tensor> call_jvp(const FunctionPtr& f, std::span<const Tensor> inputs,
                             const std::vector<Tensor>& tangents) {
  std::vector<Tensor> in(inputs.begin(), inputs.end());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (is_floating(inputs[i].dtype()))
      in.push_back(tangents[i].defined() ? tangents[i] : zeros_of(inputs[i].impl()->type()));
  std::vector<Tensor> r = record_op(OpCode::call, in, CallAttrs{jvp_program(f)});
  std::vector<Tensor> out;
  const std::vector<TensorType>& results = f->result_types();
  out.reserve(results.size());
  size_t k = results.size();
  for (const TensorType& t : results) out.push_back(is_floating(t.dtype) ? r[k++] : Tensor());
  return out;
}

std::vector<Tensor> call_jvp(const OpContext& c, const std::vector<Tensor>& tangents) {
  return call_jvp(c.attr<CallAttrs>().callee, c.inputs, tangents);
}

std::vector<Tensor> cond_vjp(const OpContext& c, const std::vector<Tensor>& cts) {
  const auto& branches = c.attr<CondAttrs>().branches;
  std::vector<bool> wrt = float_mask(c.inputs, 1);
  CondAttrs grads_attrs;
  for (const auto& b : branches) grads_attrs.branches.push_back(vjp_programs(b, wrt).joint);
  std::vector<Tensor> in(c.inputs.begin(), c.inputs.end());  // index, operands
  for (const Tensor& t : float_cts(c.outputs, cts)) in.push_back(t);
  std::vector<Tensor> g = record_op(OpCode::cond, in, grads_attrs);
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
  std::vector<Tensor> r = record_op(OpCode::cond, in, attrs);
  std::vector<Tensor> out;
  size_t k = c.outputs.size();
  for (const Tensor& o : c.outputs) out.push_back(is_floating(o.dtype()) ? r[k++] : Tensor());
  return out;
}

}  // namespace lazax::autodiff
