// Staged control flow: data-dependent branches and loops that become single `cond`, `while` and
// `scan` nodes, their bodies traced once into programs (JAX's lax.cond / while_loop / scan).
// Tensors the bodies capture from outside become extra operands; bodies must be pure (no
// in-place updates of outside tensors).
//
// Operands, carries, xs and results are trees (tree.h), as for the transforms: a Tensor, a struct
// with LAZAX_TREE_FIELDS, pairs, tuples, vectors, maps. The tree forms (templates, at the end)
// flatten them with tree_flatten onto the flat forms, which take and return `Tensors`; a call
// whose operands are one `Tensors` and whose bodies return `Tensors` is a flat call.
//   Tensor y = cond(x.sum() > 0.0, [](const Tensor& v) { return sin(v); },
//                   [](const Tensor& v) { return -v; }, x);
//   auto [h, ys] = scan([&](const Tensor& h, const Tensor& x) {
//     Tensor next = tanh(h * w + x);
//     return std::make_pair(next, next * 2.0);
//   }, h0, xs);
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/tree.h"
#include "lazax/core/error.h"

namespace lazax {

struct RematPolicy;  // remat.h

using Tensors = std::vector<Tensor>;
using BranchFn = std::function<Tensors(const Tensors&)>;

// ---- flat forms ----

// pred: a bool or integer scalar tensor (an integer is true when nonzero). Both branches are
// traced; their results must match in number, dtype and shape. Differentiable in forward and
// reverse mode.
Tensors cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
             const Tensors& operands);
// lax.switch: branches[clamp(index, 0, n-1)].
Tensors switch_(const Tensor& index, const std::vector<BranchFn>& branches,
                const Tensors& operands);

// Repeats body while cond_fn(carry) (a bool scalar) holds. Differentiable in forward mode only.
Tensors while_loop(const BranchFn& cond_fn, const BranchFn& body, const Tensors& init);

// body(carry, x) -> (new carry, y) over the leading dimension of xs; returns (final carry, ys
// stacked on a new leading dimension). Differentiable in forward and reverse mode.
using ScanFn = std::function<std::pair<Tensors, Tensors>(const Tensors& carry, const Tensors& x)>;
std::pair<Tensors, Tensors> scan(const ScanFn& body, const Tensors& init, const Tensors& xs,
                                 bool reverse = false);

// scan under a remat policy (remat.h, as jax.checkpoint around a scan body): differentiated on
// the tape, each iteration saves for the backward only what `remat` calls saveable (stacked, one
// row per iteration) and the reverse scan recomputes the rest per iteration, reading its inputs
// through an optimization_barrier when `prevent_cse`. Without a policy, lazax's default split.
// The policy applies to the scan as recorded on the tape: a backward that is itself
// differentiated (create_graph), and a scan recorded inside a function trace (assume_pure, jit),
// differentiate the scan op by its rule, with the default split.
struct ScanOptions {
  bool reverse = false;
  std::shared_ptr<const RematPolicy> remat;
  bool prevent_cse = true;
};
std::pair<Tensors, Tensors> scan(const ScanFn& body, const Tensors& init, const Tensors& xs,
                                 const ScanOptions& options);

// A loop with static bounds: a scan with no xs (differentiable).
Tensors fori_loop(int64_t lower, int64_t upper,
                  const std::function<Tensors(const Tensor& i, const Tensors& carry)>& body,
                  const Tensors& init);

// ---- tree forms ----

namespace detail {

template <class F, class R, class... Args>
constexpr bool returns() {
  if constexpr (std::is_invocable_v<std::decay_t<F>&, const Args&...>) {
    return std::is_same_v<std::decay_t<std::invoke_result_t<std::decay_t<F>&, const Args&...>>, R>;
  } else {
    return false;
  }
}
// Operands one `Tensors`, and a body that returns `Tensors`: the flat form's call.
template <class F, class... Operands>
constexpr bool flat_branch() {
  if constexpr (sizeof...(Operands) == 1 && (std::is_same_v<Operands, Tensors> && ...))
    return returns<F, Tensors, Tensors>();
  return false;
}

// A tree's structure without its tensors' types (those the flat forms check, naming the types):
// the key of the same tree with every tensor undefined.
template <class T>
uint64_t skeleton_key(const T& v) {
  return tree_key(tree_unflatten(v, std::vector<Tensor>(tree_flatten(v).size())));
}
template <class T>
void check_structure(const char* op, const std::string& got_name, const T& got,
                     const std::string& want_name, const T& want, const char* rule) {
  if (skeleton_key(got) == skeleton_key(want)) return;
  throw ValueError(std::string("[") + op + "] " + got_name + " " + tree_structure(got) + " but " +
                   want_name + " " + tree_structure(want) + "; " + rule);
}

// cond and switch_ on trees: each branch is traced as a flat body that unflattens the operands
// like `operands`, and checks its result's structure against branch 0's. `run_flat` runs the
// flat form on the flat bodies and operands.
template <class Out, class Branch, class Args, class Name, class RunFlat>
Out call_branches(const char* op, const std::vector<Branch>& branches, const Args& operands,
                  Name name, RunFlat run_flat) {
  std::vector<std::optional<Out>> outs(branches.size());
  std::vector<BranchFn> flat;
  for (size_t i = 0; i < branches.size(); ++i) {
    flat.push_back([&, i](const Tensors& leaves) {
      outs[i].emplace(std::apply(branches[i], tree_unflatten(operands, leaves)));
      if (i > 0 && outs[0]) {
        check_structure(op, name(i) + " returns", *outs[i], name(0) + " returns", *outs[0],
                        "the branches must return the same tree structure");
      }
      return tree_flatten(*outs[i]);
    });
  }
  Tensors r = run_flat(flat, tree_flatten(operands));
  return tree_unflatten(*outs[0], r);  // NOLINT(bugprone-unchecked-optional-access): traced
}

}  // namespace detail

// cond(pred, true_fn, false_fn, operands...): the branches take the operands (any trees, or none:
// they may capture tensors instead) and return the same tree structure, which cond returns.
template <class TrueFn, class FalseFn, class... Operands>
  requires(!(detail::flat_branch<TrueFn, Operands...>() &&
             detail::flat_branch<FalseFn, Operands...>()))
auto cond(const Tensor& pred, TrueFn&& true_fn, FalseFn&& false_fn, const Operands&... operands) {
  using Out = std::decay_t<std::invoke_result_t<std::decay_t<TrueFn>&, const Operands&...>>;
  static_assert(detail::returns<FalseFn, Out, Operands...>(),
                "[cond] true_fn and false_fn must return the same type");
  using Branch = std::function<Out(const Operands&...)>;
  std::vector<Branch> branches = {Branch(std::ref(false_fn)), Branch(std::ref(true_fn))};
  return detail::call_branches<Out>(
      "cond", branches, std::tuple<Operands...>{operands...},
      [](size_t i) { return std::string(i ? "true_fn" : "false_fn"); },
      [&](const std::vector<BranchFn>& fs, const Tensors& ops) {
        return cond(pred, fs[1], fs[0], ops);  // flat branch 0 is false_fn
      });
}

// switch_(index, branches, operands...): branches[clamp(index, 0, n-1)](operands...), on trees.
template <class F, class... Operands>
  requires(!detail::flat_branch<F, Operands...>())
auto switch_(const Tensor& index, const std::vector<F>& branches, const Operands&... operands) {
  using Out = std::decay_t<std::invoke_result_t<const F&, const Operands&...>>;
  return detail::call_branches<Out>(
      "switch_", branches, std::tuple<Operands...>{operands...},
      [](size_t i) { return "branch " + std::to_string(i); },
      [&](const std::vector<BranchFn>& fs, const Tensors& ops) { return switch_(index, fs, ops); });
}

// while_loop(cond_fn, body, init): init any tree; cond_fn(carry) returns a bool scalar tensor,
// body(carry) the next carry, with init's tree structure.
template <class CondFn, class BodyFn, class Carry>
  requires(!(std::is_same_v<Carry, Tensors> && detail::returns<CondFn, Tensors, Tensors>() &&
             detail::returns<BodyFn, Tensors, Tensors>()))
Carry while_loop(CondFn&& cond_fn, BodyFn&& body, const Carry& init) {
  const BranchFn flat_cond = [&](const Tensors& leaves) {
    return tree_flatten(cond_fn(tree_unflatten(init, leaves)));
  };
  const BranchFn flat_body = [&](const Tensors& leaves) {
    Carry next = body(tree_unflatten(init, leaves));
    detail::check_structure("while_loop", "the body returns", next, "the carry is", init,
                            "the body must return the carry's tree structure");
    return tree_flatten(next);
  };
  return tree_unflatten(init, while_loop(flat_cond, flat_body, tree_flatten(init)));
}

// scan(body, init, xs[, reverse]): init and xs any trees; body(carry, x) returns a pair (the next
// carry, with init's structure; y, any tree), x being xs's slice at one index of the leading
// dimension. Returns the pair (final carry, ys: y's tree, its tensors stacked on a new leading
// dimension).
template <class Body, class Carry, class Xs>
  requires(!(std::is_same_v<Carry, Tensors> && std::is_same_v<Xs, Tensors> &&
             detail::returns<Body, std::pair<Tensors, Tensors>, Tensors, Tensors>()))
auto scan(Body&& body, const Carry& init, const Xs& xs, bool reverse = false) {
  using Result = std::decay_t<std::invoke_result_t<std::decay_t<Body>&, const Carry&, const Xs&>>;
  static_assert(std::tuple_size_v<Result> == 2, "[scan] the body must return a pair (carry, y)");
  using Y = std::decay_t<std::tuple_element_t<1, Result>>;
  std::optional<Y> y_like;
  const ScanFn flat_body = [&](const Tensors& c, const Tensors& x) {
    Result r = body(tree_unflatten(init, c), tree_unflatten(xs, x));
    Carry next = std::get<0>(std::move(r));
    detail::check_structure("scan", "the body returns the carry", next, "the carry is", init,
                            "the body must return the carry's tree structure");
    y_like.emplace(std::get<1>(std::move(r)));
    return std::make_pair(tree_flatten(next), tree_flatten(*y_like));
  };
  auto [carry, ys] = scan(flat_body, tree_flatten(init), tree_flatten(xs), reverse);
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access): the trace ran the body
  return std::make_pair(tree_unflatten(init, carry), tree_unflatten(*y_like, ys));
}

}  // namespace lazax
