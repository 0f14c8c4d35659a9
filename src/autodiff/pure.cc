// Tracing pure functions once and calling them as single nodes, with a functional VJP.
#include "lazax/autodiff/pure.h"

#include <cstdio>
#include <cstdlib>

#include "engine.h"
#include "lazax/autodiff/function_ad.h"
#include "lazax/autodiff/tape.h"
#include "lazax/autodiff/transforms.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/printer.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/detail/deferred_values.h"
#include "lazax/trace/trace_stack.h"

namespace lazax {
namespace detail {
namespace {
metrics::Counter& c_traces = metrics::counter("PureTraces");
metrics::Counter& c_calls = metrics::counter("PureCalls");
}  // namespace

bool capture_rebound(const Tensor& capture) { return capture.impl()->rebound_away; }

bool check_pure_default() { return Context::get().options().check_pure; }

std::vector<Tensor> undefined_like(const std::vector<Tensor>& xs) {
  return std::vector<Tensor>(xs.size());
}

void note_cache_miss(const std::string& name, const std::string& key, size_t entries) {
  if (!Context::get().options().debug) return;
  std::fprintf(stderr,
               "[lazax] tracing '%s' for the input signature %s (%zu signatures cached). If this "
               "happens on every step, the function object is being re-created (make the "
               "assume_pure/jit object once, outside the loop) or its input shapes change.\n",
               name.c_str(), key.c_str(), entries);
}

std::shared_ptr<PureEntry> trace_pure(const PureOptions& opts, const std::string& where,
                                      const std::vector<Tensor>& args, const FlatFn& body) {
  c_traces.add();
  metrics::ScopedTimer timed(metrics::timer("TraceTime"));
  const std::string& name = opts.name;
  auto e = std::make_shared<PureEntry>();
  e->name = name;
  e->where = where;
  e->remat = opts.remat;
  e->prevent_cse = opts.prevent_cse;
  TraceScope scope(name, where);
  std::vector<Tensor> ph;
  for (const Tensor& a : args) {
    if (!a.defined()) throw ValueError("[trace] argument of '" + name + "' is undefined");
    ph.push_back(make_pending(add_trace_param(a.impl()->type())));
  }
  std::vector<Tensor> outs;
  try {
    TraceNoGrad off;  // the program is pure; gradients come from its functional VJP
    outs = body(ph);
  } catch (Error& err) {
    add_trace_note(err, scope.frame());  // a ShapeError deep inside says which function
    throw;
  }
  e->num_outputs = outs.size();
  std::vector<GraphValue> vals;
  for (const Tensor& o : outs) {
    if (!o.defined()) throw ValueError("[trace] '" + name + "' returned an undefined tensor");
    vals.push_back(operand(o, "trace"));
  }
  TraceFrame& f = scope.frame();
  // Mutations: explicit arguments write back to the caller's argument, others to the target.
  for (size_t m = 0; m < f.mutations.size(); ++m) {
    size_t result = e->num_outputs + m;
    const LazyValue* target = f.mutations[m].target.get();
    const char* op = f.mutations[m].op;
    bool is_arg = false;
    for (size_t i = 0; i < ph.size(); ++i) {
      if (ph[i].impl() == target) {
        e->arg_writebacks.push_back({result, i, op});
        is_arg = true;
      }
    }
    if (!is_arg) {
      auto impl = std::dynamic_pointer_cast<TensorImpl>(f.mutations[m].target);
      e->outer_writebacks.push_back({result, Tensor(impl), op});
    }
  }
  e->fn = build_traced_function(f, vals);
  for (const auto& c : f.captures) {
    auto impl = std::dynamic_pointer_cast<TensorImpl>(c.source);
    impl->pure_capture = true;  // read as it is now: a later assignment of it is noted
    impl->rebound_away = false;
    e->captures.push_back(Tensor(impl));
    e->capture_types.push_back(c.placeholder->outputs[0]);
  }
  return e;
}

namespace {

// Records a call on graph values: unchecked when the caller has compared the operands with the
// callee's parameters (`fits`), else through the shape rule, which reports a mismatch.
GraphNodePtr record_call(GraphOperands&& operands, const SharedAttrs& attrs, bool fits) {
  if (fits) return record_call_prechecked(std::move(operands), attrs);
  return record(OpCode::call, std::move(operands), attrs).node;
}

// What the backward of one forward call reads besides the cotangents: the residuals (the
// outputs of its `call` node that only its backward reads) and the primal inputs the backward
// program reads (p.bwd_inputs), as the forward call's operands were: graph values taken when the
// forward was recorded, so that an input updated in place afterwards (a write-back at the end of
// call_pure, or the caller's x.add_(1)) does not change what the backward sees. They stay graph
// values, without tensor handles, unless a sync comes before the backward: then the pending ones
// become pending values like any other and are materialized with it (data leaves need nothing).
class Residuals final : public DeferredValues {
 public:
  explicit Residuals(GraphOperands values) : values_(std::move(values)) {
    if (!values_.empty()) frame_ = values_[0].node->frame;
  }

  void materialize() override {
    // Tracers of a function trace are never materialized: they stay graph values.
    if (frame_) return;
    to_tensors(/*data_leaves=*/false);
  }

  // The values as operands of the backward call, recorded in the current trace context. With
  // `last_use` (the tape entry is freed after this backward) they are moved out, not copied.
  void append_operands(GraphOperands& ops, bool last_use) {
    if (!values_.empty() && frame_ != current_frame_ptr()) {
      unregister();
      to_tensors(true);  // from another trace: lifted as captures (or a leaked tracer reported)
    }
    for (size_t i = 0; i < values_.size(); ++i) {
      if (values_[i].defined())
        ops.push_back(last_use ? std::move(values_[i]) : values_[i]);
      else
        ops.push_back(operand(tensors_[i], "call"));
    }
    if (last_use) unregister();  // nothing left to materialize
  }

  // Moves every value out as the start of a backward call's operands, when all are still graph
  // values of the current trace context (the usual case: no sync came between the forward and
  // the backward): the list was made with room for the cotangents, so nothing is copied.
  // False (nothing changed) otherwise.
  bool take_all(GraphOperands& ops) {
    if (values_.empty() || !tensors_.empty() || frame_ != current_frame_ptr()) return false;
    ops = std::move(values_);
    unregister();  // nothing left to materialize
    return true;
  }

  // The values as tensors (for the taped backward of create_graph).
  const std::vector<Tensor>& tensors() {
    unregister();
    to_tensors(true);
    return tensors_;
  }

 private:
  static bool is_data_leaf(const GraphValue& v) {
    return v.node->op == OpCode::parameter && v.node->data;
  }

  // Gives the held values tensor handles (a data leaf becomes a data tensor, only when
  // `data_leaves`: a sync does not need them) and drops the graph values so converted.
  void to_tensors(bool data_leaves) {
    tensors_.resize(values_.size());
    for (size_t i = 0; i < values_.size(); ++i) {
      GraphValue& v = values_[i];
      if (!v.defined()) continue;
      if (is_data_leaf(v)) {
        if (!data_leaves) continue;
        tensors_[i] = Tensor(std::make_shared<TensorImpl>(*v.node->data));
      } else {
        tensors_[i] = make_pending(std::move(v));
      }
      v = GraphValue();
    }
  }

  GraphOperands values_;         // those not yet handed to tensors (the others: undefined)
  std::vector<Tensor> tensors_;  // parallel to values_ once a value has a handle
  std::shared_ptr<TraceFrame> frame_;
};

// The backward of one call: a `call` of p.bwd on the residuals, the inputs it reads and the
// output cotangents. Under create_graph it must be differentiable as a function of the inputs
// too (grad of grad), which p.bwd is not (its residuals are constants to it): it is then the
// joint program (forward inlined) on the inputs saved at the call, recorded on the tape.
std::vector<Tensor> call_backward(const autodiff::VjpPrograms& p, Residuals& res,
                                  const std::vector<Tensor>& cts,
                                  std::span<const Tensor> saved_inputs) {
  // The cotangents the backward reads (zeros where none came; inline for the usual one or two).
  // Made first: making zeros records ops, which may cut the graph, and the residuals taken
  // below must be the graph values a cut leaves.
  InlineVec<Tensor, 2> ct_in;
  for (size_t i = 0; i < cts.size(); ++i) {
    if (!p.ct_outputs[i]) continue;
    if (cts[i].defined()) {
      ct_in.push_back(cts[i]);
    } else {
      const TensorType& t = p.fwd->type(p.fwd->results()[i]);
      ct_in.push_back(zeros(t.shape.vec(), t.dtype));
    }
  }
  bool taped = false;  // create_graph: the backward call itself goes on the tape
  if (grad_enabled()) {
    for (size_t i = 0; i < cts.size(); ++i)
      taped = taped || (p.ct_outputs[i] && cts[i].defined() && cts[i].requires_grad());
    for (const Tensor& t : saved_inputs) taped = taped || t.requires_grad();
  }
  std::vector<Tensor> per_input(p.wrt.size());
  if (taped) {
    std::vector<Tensor> in(saved_inputs.begin(), saved_inputs.end());
    in.insert(in.end(), ct_in.begin(), ct_in.end());
    std::vector<Tensor> g = record_op(OpCode::call, in, CallAttrs{p.joint});
    size_t k = 0;
    for (size_t i = 0; i < per_input.size(); ++i)
      if (p.wrt[i]) per_input[i] = std::move(g[k++]);
    return per_input;
  }
  cut_pending_graph_if_large();
  GraphOperands ops;
  const bool last_use = autodiff::saved_values_released_after_rule();
  if (!(last_use && res.take_all(ops))) {
    ops.reserve(static_cast<size_t>(p.num_residuals) + p.bwd_inputs.size() + ct_in.size());
    res.append_operands(ops, last_use);
  }
  for (const Tensor& t : ct_in) ops.push_back(operand(t, "call"));
  // The residuals and inputs fit p.bwd by construction (the forward call's results and checked
  // operands): only the cotangents are compared before the call is recorded unchecked.
  const Function& b = *p.bwd;
  const size_t first_ct = ops.size() - ct_in.size();
  bool fits = b.params_well_formed() && static_cast<size_t>(b.num_params()) == ops.size();
  for (size_t j = 0; fits && j < ct_in.size(); ++j)
    fits = b.node(static_cast<int32_t>(first_ct + j)).outputs[0] == ct_in[j].impl()->type();
  GraphNodePtr node = record_call(std::move(ops), p.bwd_call, fits);
  for (size_t k = 0; k < p.wrt_index.size(); ++k)
    per_input[static_cast<size_t>(p.wrt_index[k])] =
        make_pending(GraphValue{node, static_cast<int32_t>(k)});
  return per_input;
}

// Which inputs require grad, as bits when there are at most 64 (a layer's parameters and its
// activation: compared with the entry's last split in one word). False when none does.
bool grad_inputs(const std::vector<Tensor>& inputs, uint64_t& mask) {
  mask = 0;
  if (!grad_enabled()) return false;
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad()) continue;
    any = true;
    if (inputs.size() <= 64) mask |= uint64_t{1} << i;
  }
  return any;
}

// The forward/backward split of e.fn for the inputs that require grad now. Usually the same on
// every call: remembered by the entry, so that a call does not look it up in the global cache.
const autodiff::VjpPrograms& vjp_split(const PureEntry& e, const std::vector<Tensor>& inputs,
                                       uint64_t mask) {
  // (Only floating tensors can require grad: requires_grad_ and the tape see to it.)
  auto wrt = [&](size_t i) { return inputs[i].requires_grad(); };
  bool same = e.vjp && e.vjp_wrt.size() == inputs.size();
  if (same && inputs.size() <= 64) {
    same = e.vjp_wrt_mask == mask;
  } else {
    for (size_t i = 0; same && i < inputs.size(); ++i) same = e.vjp_wrt[i] == wrt(i);
  }
  if (!same) {
    std::vector<bool> w(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) w[i] = wrt(i);
    e.vjp = &autodiff::vjp_programs(e.fn, w, e.remat.get(), e.prevent_cse);
    e.vjp_wrt = std::move(w);
    e.vjp_wrt_mask = mask;
  }
  return *e.vjp;
}

// Records `call(p.fwd)` on the inputs (not taped) and a tape entry whose VJP is call_backward
// on the residuals the call returns; returns the outputs.
std::vector<Tensor> call_with_vjp(const autodiff::VjpPrograms& p,
                                  const std::vector<Tensor>& inputs) {
  cut_pending_graph_if_large();
  // (A model's parameters' leaf nodes are cold by their layer's turn: fetched together.)
  for (const Tensor& t : inputs)
    if (t.defined()) t.impl()->prefetch_leaf();
  GraphOperands ops;
  ops.reserve(inputs.size());
  for (const Tensor& t : inputs) ops.push_back(operand(t, "call"));
  // The operands are compared with p.fwd's parameters on the tensors, whose handles the
  // signature key has just read, not on their graph nodes (a model's parameters' leaves are
  // cold by now); a mismatch takes the checked path, whose shape rule reports it.
  bool fits = p.fwd->takes_interned(
      inputs.size(), [&](size_t i) -> const TensorType& { return inputs[i].impl()->type(); });
  GraphNodePtr node = record_call(std::move(ops), p.fwd_call, fits);
  std::vector<Tensor> outs;
  outs.reserve(static_cast<size_t>(p.num_outputs));
  for (int32_t k = 0; k < p.num_outputs; ++k) outs.push_back(make_pending(GraphValue{node, k}));
  // The residuals, then the inputs the backward reads (this call's operands, as recorded: not
  // the argument tensors, which the write-backs or the caller may update in place before the
  // backward), with room for the cotangents the backward call adds (Residuals::take_all).
  const size_t n_res = static_cast<size_t>(p.num_residuals);
  GraphOperands saved;
  saved.reserve(n_res + p.bwd_inputs.size() + static_cast<size_t>(p.num_outputs));
  for (size_t k = 0; k < n_res; ++k)
    saved.push_back(GraphValue{node, p.num_outputs + static_cast<int32_t>(k)});
  for (int i : p.bwd_inputs) saved.push_back(node->operands[static_cast<size_t>(i)]);
  // The tape entry holds them until backward releases it (or the tape dies).
  auto res = make_pooled<Residuals>(std::move(saved));
  // (The rule captures two plain pointers: it fits in std::function's own storage, and the
  // entry keeps `res` alive beside it.)
  const autodiff::VjpPrograms* programs = &p;
  Residuals* residuals = res.get();
  return attach_custom_vjp(
      inputs, std::move(outs),
      CustomVjpWithInputs([programs, residuals](const std::vector<Tensor>& cts,
                                                std::span<const Tensor> saved_inputs) {
        return call_backward(*programs, *residuals, cts, saved_inputs);
      }),
      std::move(res),
      // Forward mode differentiates the traced function, on the inputs of the call.
      [programs](const std::vector<Tensor>& tangents, std::span<const Tensor> saved_inputs) {
        return autodiff::call_jvp(programs->fn, saved_inputs, tangents);
      });
}

// Why e.fn has no reverse mode for the inputs that require grad now (a while loop, as in JAX),
// or nullptr when it has one. The split is tried once per set of inputs; a failure is kept.
const std::string* no_vjp(const PureEntry& e, const std::vector<Tensor>& inputs, uint64_t mask) {
  const bool by_mask = inputs.size() <= 64;
  if (by_mask && !e.no_vjp_why.empty() && e.no_vjp_mask == mask) return &e.no_vjp_why;
  try {
    vjp_split(e, inputs, mask);
    return nullptr;
  } catch (const NotDifferentiableError& err) {
    e.no_vjp_why = err.what();
    e.no_vjp_mask = by_mask ? mask : ~uint64_t{0};
    return &e.no_vjp_why;
  }
}

// A call of a function without reverse mode on inputs that track derivatives: one call node
// whose tape entry differentiates forward (jvp through the traced function) and raises the
// reason when a backward pass reaches it.
std::vector<Tensor> call_forward_mode_only(const PureEntry& e, const std::vector<Tensor>& inputs,
                                           const std::string& why) {
  std::vector<Tensor> outs = record_op(OpCode::call, inputs, CallAttrs{e.fn}).vec();
  FunctionPtr fn = e.fn;
  return attach_custom_vjp(
      inputs, std::move(outs),
      CustomVjpWithInputs([why](const std::vector<Tensor>&, std::span<const Tensor>)
                              -> std::vector<Tensor> { throw NotDifferentiableError(why); }),
      nullptr, [fn](const std::vector<Tensor>& tangents, std::span<const Tensor> saved_inputs) {
        return autodiff::call_jvp(fn, saved_inputs, tangents);
      });
}

// Writes the new values of in-place-updated inputs and outer tensors back.
void write_back(const PureEntry& e, const std::vector<Tensor>& args,
                const std::vector<Tensor>& results) {
  // Inside an enclosing trace, the updates this call checks (check_writebacks) are the enclosing
  // trace's to check at its own calls: made as the same in-place ops, with grad off for it.
  const bool enclosing_checks = grad_off_for_trace();
  auto copy_back = [&](Tensor target, const Tensor& value, const char* op) {
    if (!op) {  // made under the body's own NoGrad: no gradient history, as outside
      NoGrad off;
      target.copy_(value.detach());
    } else if (enclosing_checks) {
      TraceNoGrad off;
      copy_as(target, value, op);
    } else {
      NoGrad off;
      target.copy_(value);
    }
  };
  for (const auto& w : e.arg_writebacks) copy_back(args[w.arg], results[w.result], w.op);
  for (const auto& w : e.outer_writebacks) copy_back(w.target, results[w.result], w.op);
}

// The write-backs follow the rule of the in-place ops they stand for: a leaf that requires grad
// is not updated in place while the caller's grad mode is on (the trace ran with grad off for
// it: TraceNoGrad). Those the body made under its own NoGrad (no op noted) are allowed, as
// outside. Checked before the call records anything.
void check_writebacks(const PureEntry& e, const std::vector<Tensor>& args) {
  if (!grad_enabled()) return;
  auto where = [&] { return " inside the function '" + e.name + "' (traced at " + e.where + ")"; };
  for (const auto& w : e.arg_writebacks)
    if (w.op && in_place_forbidden(args[w.arg])) throw_in_place_on_leaf(args[w.arg], w.op, where());
  for (const auto& w : e.outer_writebacks)
    if (w.op && in_place_forbidden(w.target)) throw_in_place_on_leaf(w.target, w.op, where());
}

}  // namespace

std::vector<Tensor> call_pure(const PureEntry& e, const std::vector<Tensor>& args) {
  c_calls.add();
  if (!e.arg_writebacks.empty() || !e.outer_writebacks.empty()) check_writebacks(e, args);
  // The call's inputs: the arguments, then the captured tensors (no copy when there are none).
  std::vector<Tensor> with_captures;
  if (!e.captures.empty()) {
    with_captures.reserve(args.size() + e.captures.size());
    with_captures.insert(with_captures.end(), args.begin(), args.end());
    with_captures.insert(with_captures.end(), e.captures.begin(), e.captures.end());
  }
  const std::vector<Tensor>& inputs = e.captures.empty() ? args : with_captures;
  uint64_t mask = 0;
  std::vector<Tensor> results;
  if (!grad_inputs(inputs, mask)) {
    results = record_op(OpCode::call, inputs, CallAttrs{e.fn}).vec();
  } else if (const std::string* why = no_vjp(e, inputs, mask)) {
    results = call_forward_mode_only(e, inputs, *why);
  } else {
    results = call_with_vjp(vjp_split(e, inputs, mask), inputs);
  }
  write_back(e, args, results);
  results.resize(e.num_outputs);
  return results;
}

namespace {
// A node's line for a message, at most about 200 characters: a long one (a large constant) keeps
// its start and the part around `diff`, where it first differs from the other one.
std::string abbreviated(const std::string& line, size_t diff) {
  constexpr size_t kMax = 200, kHead = 80, kAround = 100;
  if (line.size() <= kMax) return line;
  if (diff + kAround / 2 <= kMax) return line.substr(0, kMax) + " ...";
  return line.substr(0, kHead) + " ... " + line.substr(diff - kAround / 2, kAround) + " ...";
}

// Node i of the two programs as lines of their text form (with the attributes, such as a
// constant's value, so that two nodes of the same type differ visibly).
std::string describe_difference(const Function& cached, const Function& now, size_t i) {
  const bool in_a = i < cached.nodes().size(), in_b = i < now.nodes().size();
  const PrintOptions plain{.debug_info = false};
  std::string a = in_a ? print_node(cached, i, plain) : "<none>";
  std::string b = in_b ? print_node(now, i, plain) : "<none>";
  size_t diff = 0;
  while (diff < a.size() && diff < b.size() && a[diff] == b[diff]) ++diff;
  const Function& f = in_a ? cached : now;
  std::string label = static_cast<int>(i) < f.num_params()
                          ? "%arg" + std::to_string(i)
                          : "%" + std::to_string(i - static_cast<size_t>(f.num_params()));
  return "node " + label + ": cached `" + abbreviated(a, diff) + "`; now `" + abbreviated(b, diff) +
         "`";
}
}  // namespace

void compare_traces(const std::string& name, const Function& cached, const Function& now) {
  if (cached.hash() == now.hash()) return;
  std::string first;
  size_t n = std::max(cached.nodes().size(), now.nodes().size());
  for (size_t i = 0; i < n; ++i) {
    bool in_a = i < cached.nodes().size(), in_b = i < now.nodes().size();
    if (in_a && in_b && cached.nodes()[i].hash == now.nodes()[i].hash) continue;
    first = describe_difference(cached, now, i);
    break;
  }
  if (first.empty()) first = "the results differ";
  throw ImpureFunctionError(
      "[assume_pure] '" + name +
      "' traced to a different program than on its first call, so it is not a pure function of "
      "its inputs (it reads state that changes between calls, such as a global or a host "
      "value). First difference at " +
      first +
      ". Pass such values as tensor arguments or static arguments. See "
      "docs/ERRORS.md#impure-function.");
}

}  // namespace detail

std::vector<Tensor> call(const FunctionPtr& fn, const std::vector<Tensor>& args) {
  if (!fn) throw ValueError("[call] the function is null");
  return record_op(OpCode::call, args, CallAttrs{fn});
}

}  // namespace lazax
