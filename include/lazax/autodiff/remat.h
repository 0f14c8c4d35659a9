// Rematerialization (JAX's jax.checkpoint and its policies): a policy decides which forward
// values of a differentiated function the backward may keep (residuals); every other value the
// backward needs is recomputed inside the backward program, from the values kept and the inputs.
//
//   checkpoint_name(x, "name")  -> x, named for policies (names the primal, not its cotangent)
//   checkpoint(f, policy)       -> assume_pure(f) whose forward/backward split follows `policy`
//                                  (default nothing_saveable: only the inputs are kept)
//   saved_residuals(f, args...) -> what the backward keeps, one line each
//
// The policy shapes the programs of the functional VJP (function_ad.h), so it holds under the
// tape (`backward()`), under grad/vjp, and in lazy graphs alike. With `prevent_cse` (the default)
// the backward program reads its inputs through an optimization_barrier, so that CSE after
// inlining cannot merge the recomputation with the forward's values and undo the remat.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lazax/autodiff/pure.h"
#include "lazax/ir/function.h"
#include "lazax/trace/call_site.h"

namespace lazax {

// A policy: whether the value(s) of `node` (a node of the joint forward+backward program `fn`)
// may be saved for the backward. `name` identifies the policy in the program cache: two policies
// with one name must decide alike.
struct RematPolicy {
  std::string name;
  std::function<bool(const Function& fn, const Node& node)> saveable;
  // Of the saveable values, those saved in host memory: the forward program copies them to the
  // `host` memory kind, the backward program copies them back (null: none).
  std::function<bool(const Function& fn, const Node& node)> offload;
  // memory_budget: at most this many bytes of residuals per differentiated program (>= 0), chosen
  // by the partition itself instead of `saveable`.
  int64_t budget_bytes = -1;
  // checkpoint_name is transparent, as in the split without a policy (a named value is no more
  // saveable than the value it names): `saveable` then only vetoes what that split would save.
  bool names_transparent = false;
};

// JAX's policies (jax.checkpoint_policies), with its names and semantics.
namespace policies {
RematPolicy everything_saveable();
RematPolicy nothing_saveable();
// Results of dot_general (matmuls); dots_with_no_batch_dims_saveable: those without batch dims.
RematPolicy dots_saveable();
RematPolicy dots_with_no_batch_dims_saveable();
// Values named by checkpoint_name with one of `names`.
RematPolicy save_only_these_names(const std::vector<std::string>& names);
// Named values, except those named one of `names`.
RematPolicy save_any_names_but_these(const std::vector<std::string>& names);
// Every value, except those named one of `names`.
RematPolicy save_anything_except_these_names(const std::vector<std::string>& names);
// Values named one of `saved` are saved, those named one of `offloaded` are saved in host
// memory; a name in both lists is a ValueError.
RematPolicy save_and_offload_only_these_names(const std::vector<std::string>& saved,
                                              const std::vector<std::string>& offloaded);
// Results of dot_general without batch dims, saved in host memory.
RematPolicy offload_dot_with_no_batch_dims();
// Beyond JAX: the backward keeps at most `bytes` of residuals (per differentiated program, e.g.
// per layer) with the least recomputation: a minimum cut over the joint program trades saved
// bytes against recomputed elements at a rate searched until the residuals fit (AOTAutograd's
// partitioner idea; matmuls, random draws and control flow are never recomputed). A budget that
// cannot be met is a ValueError naming the smallest it reached.
RematPolicy memory_budget(int64_t bytes);
// What either policy saves (offloaded where the policy that saves it offloads it).
RematPolicy save_from_both_policies(const RematPolicy& a, const RematPolicy& b);
// A user policy: a predicate over the node (its op, attributes and result types).
RematPolicy custom(const std::string& name,
                   std::function<bool(const Function&, const Node&)> saveable);
// The policy without arguments of that name (everything_saveable, nothing_saveable,
// dots_saveable, dots_with_no_batch_dims_saveable, offload_dot_with_no_batch_dims), or
// memory_budget(BYTES); a ValueError listing them for another name.
RematPolicy by_name(const std::string& name);
}  // namespace policies

// An identity that names `x` for the policies above (the checkpoint_name op).
Tensor checkpoint_name(const Tensor& x, const std::string& name);

struct CheckpointOptions {
  std::string name = "checkpoint";
  bool prevent_cse = true;
};

template <class F>
PureFunction<F> checkpoint(F f, RematPolicy policy = policies::nothing_saveable(),
                           const CheckpointOptions& opts = {}, Loc loc = Loc::current()) {
  PureOptions p;
  p.name = opts.name;
  p.remat = std::make_shared<const RematPolicy>(std::move(policy));
  p.prevent_cse = opts.prevent_cse;
  return assume_pure(std::move(f), std::move(p), loc);
}

namespace detail {
// The forward/backward split of e's program differentiated with respect to every floating input,
// under e's policy (what saved_residuals lists and the remat bench measures).
const autodiff::VjpPrograms& split_for_every_input(const PureEntry& e);
// arg_paths: each flattened argument's path ("0", "1.w1", "2.layers.0.wq.weight").
std::vector<std::string> saved_residuals(const PureEntry& e,
                                         const std::vector<std::string>& arg_paths);
}  // namespace detail

// What the backward of `f` (an assume_pure or checkpoint function) keeps when differentiated
// with respect to every floating argument, one line per residual, as JAX's
// print_saved_residuals:
//   f32[8,128] output of dot_general from model.cc:42 (attention)
//   f32[8,128] named 'h' from model.cc:45
//   f32[4,4] from the argument 1            (the second argument, a tensor)
//   f32[256,256] from the argument 0.layers.1.attention.wq.weight   (in a tree: tree_paths)
// `from` names the line of the caller's code that made the value (trace/call_site.h; the
// function's name where that code was built without -g); the parenthesis is the profiler scope
// (trace/scope.h) it was made in. Traces `f` for these arguments again, keeping call sites (the
// cached trace keeps none), and splits it as a call would.
template <class F, class... Args>
std::vector<std::string> saved_residuals(PureFunction<F>& f, const Args&... args) {
  std::shared_ptr<detail::PureEntry> e;
  {
    CallSiteCapture capture;
    e = f.trace_fresh(args...);
  }
  std::vector<std::string> paths;
  size_t i = 0;
  ((tree_paths(args, std::to_string(i), paths), ++i), ...);
  return detail::saved_residuals(*e, paths);
}

// saved_residuals, printed to stdout one line each (JAX's print_saved_residuals).
template <class F, class... Args>
void print_saved_residuals(PureFunction<F>& f, const Args&... args) {
  for (const std::string& line : saved_residuals(f, args...)) std::printf("%s\n", line.c_str());
}

}  // namespace lazax
