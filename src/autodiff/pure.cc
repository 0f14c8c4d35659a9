// Tracing pure functions once and calling them as single nodes, with a functional VJP.
#include "lazax/pure.h"

#include <cstdio>
#include <cstdlib>

#include "../api/tensor_impl.h"
#include "lazax/autodiff/function_ad.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/printer.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/trace_stack.h"
#include "lazax/transforms.h"

namespace lazax {
namespace detail {
namespace {
metrics::Counter& c_traces = metrics::counter("PureTraces");
metrics::Counter& c_calls = metrics::counter("PureCalls");
}  // namespace

bool check_pure_env() {
  const char* v = std::getenv("LAZAX_CHECK_PURE");
  return v && std::string(v) != "0";
}

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

std::shared_ptr<PureEntry> trace_pure(const std::string& name, const std::string& where,
                                      const std::vector<Tensor>& args, const FlatFn& body) {
  c_traces.add();
  metrics::ScopedTimer timed(metrics::timer("TraceTime"));
  auto e = std::make_shared<PureEntry>();
  TraceScope scope(name, where);
  std::vector<Tensor> ph;
  for (const Tensor& a : args) {
    if (!a.defined()) throw ValueError("[trace] argument of '" + name + "' is undefined");
    ph.push_back(make_pending(add_trace_param(a.impl()->type())));
  }
  std::vector<Tensor> outs;
  {
    NoGrad off;  // the program is pure; gradients come from its functional VJP
    outs = body(ph);
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
    bool is_arg = false;
    for (size_t i = 0; i < ph.size(); ++i) {
      if (ph[i].impl() == target) {
        e->arg_writebacks.push_back({result, i});
        is_arg = true;
      }
    }
    if (!is_arg) {
      auto impl = std::dynamic_pointer_cast<TensorImpl>(f.mutations[m].target);
      e->outer_writebacks.push_back({result, Tensor(impl)});
    }
  }
  e->fn = build_traced_function(f, vals);
  for (const auto& c : f.captures) {
    auto impl = std::dynamic_pointer_cast<TensorImpl>(c.source);
    e->captures.push_back(Tensor(impl));
    e->capture_types.push_back(c.placeholder->outputs[0]);
  }
  return e;
}

std::vector<Tensor> call_pure(const PureEntry& e, const std::vector<Tensor>& args) {
  c_calls.add();
  std::vector<Tensor> inputs = args;
  for (const Tensor& c : e.captures) inputs.push_back(c);
  bool needs_grad = false;
  if (grad_enabled())
    for (const Tensor& t : inputs) needs_grad = needs_grad || t.requires_grad();
  std::vector<Tensor> results;
  if (!needs_grad) {
    results = record_op_multi(OpCode::call, inputs, CallAttrs{e.fn});
  } else {
    std::vector<bool> wrt;
    for (const Tensor& t : inputs) wrt.push_back(t.requires_grad() && is_floating(t.dtype()));
    const autodiff::VjpPrograms& p = autodiff::vjp_programs(e.fn, wrt);
    std::vector<Tensor> r;
    {
      NoGrad off;
      r = record_op_multi(OpCode::call, inputs, CallAttrs{p.fwd});
    }
    std::vector<Tensor> outs(r.begin(), r.begin() + p.num_outputs);
    std::vector<Tensor> res(r.begin() + p.num_outputs, r.end());
    FunctionPtr bwd = p.bwd;
    std::vector<bool> ct_outputs = p.ct_outputs;
    std::vector<TensorType> out_types = e.fn->result_types();
    auto vjp_fn = [bwd, res, ct_outputs, out_types, wrt](const std::vector<Tensor>& cts) {
      std::vector<Tensor> in = res;
      for (size_t i = 0; i < cts.size(); ++i) {
        if (!ct_outputs[i]) continue;
        in.push_back(cts[i].defined() ? cts[i]
                                      : zeros(out_types[i].shape.vec(), out_types[i].dtype));
      }
      std::vector<Tensor> g = record_op_multi(OpCode::call, in, CallAttrs{bwd});
      std::vector<Tensor> per_input;
      size_t k = 0;
      for (bool w : wrt) per_input.push_back(w ? g[k++] : Tensor());
      return per_input;
    };
    results = attach_custom_vjp(inputs, outs, vjp_fn);
  }
  // Write the new values of in-place-updated inputs back.
  for (const auto& [r, i] : e.arg_writebacks) {
    Tensor target = args[i];
    NoGrad off;
    target.copy_(results[r]);
  }
  for (const auto& [r, target] : e.outer_writebacks) {
    Tensor t = target;
    NoGrad off;
    t.copy_(results[r]);
  }
  results.resize(e.num_outputs);
  return results;
}

void compare_traces(const std::string& name, const Function& cached, const Function& now) {
  if (cached.hash() == now.hash()) return;
  std::string first;
  size_t n = std::max(cached.nodes().size(), now.nodes().size());
  for (size_t i = 0; i < n; ++i) {
    bool in_a = i < cached.nodes().size(), in_b = i < now.nodes().size();
    if (in_a && in_b && cached.nodes()[i].hash == now.nodes()[i].hash) continue;
    auto describe = [](const Function& f, size_t k) {
      const Node& nd = f.nodes()[k];
      std::string s = std::string(op_name(nd.op)) + " -> ";
      for (const auto& t : nd.outputs) s += t.str() + " ";
      return s;
    };
    first = "node %" + std::to_string(i) + ": cached " +
            (in_a ? describe(cached, i) : std::string("<none>")) + "; now " +
            (in_b ? describe(now, i) : std::string("<none>"));
    break;
  }
  if (first.empty()) first = "the results differ";
  throw ImpureFunctionError(
      "[assume_pure] '" + name +
      "' traced to a different program than on its first call, so it is not a pure function of "
      "its inputs (it reads state that changes between calls, such as a global or a host "
      "value). First difference at " + first +
      ". Pass such values as tensor arguments or static arguments. See "
      "docs/ERRORS.md#impure-function.");
}

}  // namespace detail

std::vector<Tensor> call(const FunctionPtr& fn, const std::vector<Tensor>& args) {
  if (!fn) throw ValueError("[call] the function is null");
  return record_op_multi(OpCode::call, args, CallAttrs{fn});
}

}  // namespace lazax
