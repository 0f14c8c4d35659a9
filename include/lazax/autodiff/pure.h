// Pure functions, traced once (DESIGN.md §1, §3b, §4):
//   trace(f, args...)     -> the Function f computes (explicit inputs, then captured tensors)
//   call(fn, args...)     -> one `call` node in the lazy graph (or the enclosing trace)
//   assume_pure(f)        -> a function object: the first call per input signature traces f; every
//                            call adds one forward `call` node and, when gradients are needed, one
//                            backward `call` node through the tape (a functional VJP of f)
//   jit(f)                -> the same mechanism (a lazax jit call runs at the next sync)
// Tensors captured from outside (module parameters) are implicit inputs read afresh on every
// call, and receive gradients. Non-tensor arguments are static: part of the cache key. In-place
// updates of inputs or captured tensors inside f are functionalized and written back after the
// call. Random ops thread the generator state the same way (new numbers on every call).
// A function without reverse mode (a while loop, as in JAX) still differentiates forward (jvp);
// a backward pass that reaches its call raises the NotDifferentiableError that says why.
#pragma once
#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lazax/autodiff/tree.h"
#include "lazax/ir/function.h"

namespace lazax {

struct RematPolicy;  // remat.h

struct PureOptions {
  std::string name;         // used in errors and program names (default: "pure_fn")
  bool check_pure = false;  // re-trace on every call and compare (also LAZAX_CHECK_PURE=1)
  // What the backward may save (remat.h; checkpoint() sets it); null: lazax's default split.
  std::shared_ptr<const RematPolicy> remat;
  bool prevent_cse = true;  // with `remat`: the backward reads its inputs through a barrier
};

namespace autodiff {
struct VjpPrograms;
}

namespace detail {
struct PureEntry {
  FunctionPtr fn;
  std::vector<Tensor> captures;  // the captured tensors (shared handles: read afresh)
  std::vector<TensorType> capture_types;
  size_t num_outputs = 0;   // flat outputs; the results after them are write-backs
  std::string name, where;  // of the traced function, for errors
  // In-place updates written back after each call: the result that holds the new value, the
  // flat argument or the outside tensor it updates, and the (first) in-place op that did it
  // outside the body's own NoGrad (null when none: not checked, and written back detached).
  struct ArgWriteback {
    size_t result, arg;
    const char* op;
  };
  struct OuterWriteback {
    size_t result;
    Tensor target;
    const char* op;
  };
  std::vector<ArgWriteback> arg_writebacks;
  std::vector<OuterWriteback> outer_writebacks;
  std::any out_like;  // the output structure (tensors undefined)
  // The VJP split call_pure used last and the inputs it differentiates (saves a lookup).
  mutable const autodiff::VjpPrograms* vjp = nullptr;
  mutable std::vector<bool> vjp_wrt;
  mutable uint64_t vjp_wrt_mask = 0;  // vjp_wrt as bits, when it has at most 64 inputs
  // Why no VJP split exists for the inputs of no_vjp_mask (a while loop: forward mode only).
  mutable std::string no_vjp_why;
  mutable uint64_t no_vjp_mask = 0;
  std::shared_ptr<const RematPolicy> remat;  // PureOptions::remat, prevent_cse
  bool prevent_cse = true;
};
using FlatFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
std::shared_ptr<PureEntry> trace_pure(const PureOptions& opts, const std::string& where,
                                      const std::vector<Tensor>& args, const FlatFn& body);
std::vector<Tensor> call_pure(const PureEntry& e, const std::vector<Tensor>& args);
// Options::check_pure (LAZAX_CHECK_PURE) of the Context, when the object is made.
bool check_pure_default();
// Whether a Tensor variable holding this captured handle was assigned another value since the
// trace that captured it (TensorImpl::rebound_away).
bool capture_rebound(const Tensor& capture);
// Throws ImpureFunctionError naming the first node where `now` differs from `cached`.
void compare_traces(const std::string& name, const Function& cached, const Function& now);
void note_cache_miss(const std::string& name, const std::string& key, size_t entries);
std::vector<Tensor> undefined_like(const std::vector<Tensor>& xs);
}  // namespace detail

template <class F>
class PureFunction {
 public:
  PureFunction(F f, PureOptions opts, std::string where)
      : f_(std::move(f)), opts_(std::move(opts)), where_(std::move(where)) {
    if (opts_.name.empty()) opts_.name = "pure_fn";
    if (detail::check_pure_default()) opts_.check_pure = true;
  }

  template <class... Args>
  auto operator()(const Args&... args) {
    using ArgsT = std::tuple<Args...>;
    using Out = std::decay_t<decltype(std::apply(f_, std::declval<ArgsT&>()))>;
    // The hot path (a cached signature) flattens and hashes the arguments, building no strings.
    std::vector<Tensor> flat;
    flat.reserve(last_flat_size_);  // one allocation, not one per doubling
    (TreeTraits<Args>::flatten(args, flat), ...);
    last_flat_size_ = flat.size();
    const std::shared_ptr<detail::PureEntry>& e = lookup(flat, args...);
    std::vector<Tensor> flat_out = detail::call_pure(*e, flat);
    return tree_unflatten(std::any_cast<const Out&>(e->out_like), flat_out);
  }

  // The traced entry for this input signature (traced now if it is not cached).
  template <class... Args>
  std::shared_ptr<detail::PureEntry> entry(const Args&... args) {
    std::vector<Tensor> flat;
    (TreeTraits<Args>::flatten(args, flat), ...);
    return lookup(flat, args...);
  }

  // A new trace for these arguments, not cached (saved_residuals traces again under a
  // CallSiteCapture, trace/call_site.h).
  template <class... Args>
  std::shared_ptr<detail::PureEntry> trace_fresh(const Args&... args) {
    std::vector<Tensor> flat;
    (TreeTraits<Args>::flatten(args, flat), ...);
    return trace(flat, args...);
  }

  const PureOptions& options() const { return opts_; }

  // Number of distinct input signatures traced so far.
  size_t cache_size() const { return cache_.size(); }
  // The traced program of the most recent signature with this structure (for inspection).
  template <class... Args>
  FunctionPtr program(const Args&... args) const {
    auto it = cache_.find(signature_key(args...));
    return it == cache_.end() ? nullptr : it->second->fn;
  }

 private:
  // The cache entry of the signature of `args` (flattened: `flat`), traced when missing or stale.
  template <class... Args>
  const std::shared_ptr<detail::PureEntry>& lookup(const std::vector<Tensor>& flat,
                                                   const Args&... args) {
    uint64_t key = signature_key(args...);
    auto it = cache_.find(key);
    bool stale = it != cache_.end() && !captures_match(*it->second);
    if (it == cache_.end() || stale || opts_.check_pure) {
      if (it == cache_.end())
        detail::note_cache_miss(opts_.name, tree_structure(std::tuple<Args...>{args...}),
                                cache_.size());
      std::shared_ptr<detail::PureEntry> entry = trace(flat, args...);
      if (it != cache_.end() && opts_.check_pure && !stale)
        detail::compare_traces(opts_.name, *it->second->fn, *entry->fn);
      it = cache_.insert_or_assign(key, entry).first;
    }
    return it->second;
  }

  // Traces the function on placeholders shaped like `args` (flattened: `flat`).
  template <class... Args>
  std::shared_ptr<detail::PureEntry> trace(const std::vector<Tensor>& flat, const Args&... args) {
    using ArgsT = std::tuple<Args...>;
    using Out = std::decay_t<decltype(std::apply(f_, std::declval<ArgsT&>()))>;
    ArgsT like{args...};
    std::optional<Out> out_like;
    auto entry = detail::trace_pure(opts_, where_, flat, [&](const std::vector<Tensor>& ph) {
      ArgsT targs = tree_unflatten(like, ph);
      Out out = std::apply(f_, targs);
      std::vector<Tensor> fo = tree_flatten(out);
      out_like = tree_unflatten(out, detail::undefined_like(fo));
      return fo;
    });
    // NOLINTNEXTLINE(bugprone-unchecked-optional-access): trace_pure ran the body, which set it
    entry->out_like = *out_like;
    return entry;
  }

  // The cache key of an input signature: tree_key(std::tuple<Args...>{args...}), without
  // copying the arguments into a tuple.
  template <class... Args>
  static uint64_t signature_key(const Args&... args) {
    TreeKey k;
    k.add(TreeKey::kTuple | sizeof...(Args));
    (TreeTraits<Args>::key(args, k), ...);
    k.add(TreeKey::kEnd);
    return k.digest();
  }

  // Whether the captured tensors are still what the program was traced with: the same types,
  // and no Tensor variable that held one has since been assigned another value (the function
  // may read that variable: `w = w - lr * g` outside, `x * w` inside), else it is traced again.
  static bool captures_match(const detail::PureEntry& e) {
    for (size_t i = 0; i < e.captures.size(); ++i) {
      if (detail::capture_rebound(e.captures[i]) ||
          e.captures[i].dtype() != e.capture_types[i].dtype ||
          e.captures[i].shape() != e.capture_types[i].shape)
        return false;
    }
    return true;
  }

  F f_;
  size_t last_flat_size_ = 0;
  PureOptions opts_;
  std::string where_;
  std::unordered_map<uint64_t, std::shared_ptr<detail::PureEntry>> cache_;
};

template <class F>
PureFunction<F> assume_pure(F f, PureOptions opts = {}, Loc loc = Loc::current()) {
  return PureFunction<F>(std::move(f), std::move(opts),
                         std::string(loc.file_name()) + ":" + std::to_string(loc.line()));
}

template <class F>
PureFunction<F> jit(F f, PureOptions opts = {}, Loc loc = Loc::current()) {
  if (opts.name.empty()) opts.name = "jit_fn";
  return PureFunction<F>(std::move(f), std::move(opts),
                         std::string(loc.file_name()) + ":" + std::to_string(loc.line()));
}

// The program f computes on arguments shaped like `args` (explicit inputs flattened in order,
// then the captured tensors).
template <class F, class... Args>
FunctionPtr trace(F f, const Args&... args) {
  std::tuple<Args...> like{args...};
  PureOptions opts;
  opts.name = "traced";
  auto entry =
      detail::trace_pure(opts, "trace", tree_flatten(like), [&](const std::vector<Tensor>& ph) {
        return tree_flatten(std::apply(f, tree_unflatten(like, ph)));
      });
  return entry->fn;
}

// One `call` node applying `fn` to `args` (differentiable through fn).
std::vector<Tensor> call(const FunctionPtr& fn, const std::vector<Tensor>& args);

}  // namespace lazax
