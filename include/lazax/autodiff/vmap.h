// vmap (JAX's jax.vmap): a function written for one example, run on a batch.
//   vmap(f, {.in_axes = {0, std::nullopt}, .out_axes = 0})(xs, w)
// f is traced once on one example's types and its program run with the batching rules
// (autodiff/batching.h): one batched op per op of f, never a loop over the examples, except the
// fallback rows of docs/VMAP.md. Arguments and results are trees (tree.h). in_axes holds one
// AxisSpec per argument (empty: axis 0 for all): an axis for every leaf of the argument,
// nullopt for an unbatched argument, or one axis per leaf; negative axes count from the end.
// out_axes is one AxisSpec for the flat outputs. With no batched argument give axis_size.
// vmap nests (vmap of vmap) and composes with grad, jit and assume_pure (docs/VMAP.md).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/tree.h"
#include "lazax/core/error.h"

namespace lazax {

using Axis = std::optional<int64_t>;

// The batch axes of one argument (or of the outputs): one for every leaf, or one per leaf.
struct AxisSpec {
  AxisSpec(int64_t a) : all(a) {}  // NOLINT: implicit, `{0, std::nullopt}` reads well
  AxisSpec(std::nullopt_t) : all(std::nullopt) {}                                     // NOLINT
  AxisSpec(std::vector<Axis> leaves) : per_leaf(std::move(leaves)), by_leaf(true) {}  // NOLINT
  Axis all = 0;
  std::vector<Axis> per_leaf;
  bool by_leaf = false;
};

struct VmapOptions {
  std::vector<AxisSpec> in_axes = {};  // one per argument; empty: 0 for every argument
  AxisSpec out_axes = 0;
  std::optional<int64_t> axis_size = std::nullopt;  // needed when no argument is batched
};

namespace detail {
struct VmapFlatSpec {
  std::vector<Axis> in_axes;  // per flat argument
  std::vector<std::string> in_paths;
  std::vector<Axis> out_axes;  // one, or one per flat output
  std::function<std::vector<std::string>()> out_paths;
  std::optional<int64_t> axis_size;
  std::string where;
};
std::vector<Tensor> vmap_flat(const VmapFlatSpec& s, const std::vector<Tensor>& args,
                              const FlatFn& body);

// Appends argument `i`'s leaf axes (its spec expanded over its `n` leaves) to `out`.
inline void expand_axes(const AxisSpec& a, size_t n, const std::string& what,
                        std::vector<Axis>& out) {
  if (!a.by_leaf) {
    out.insert(out.end(), n, a.all);
    return;
  }
  if (a.per_leaf.size() != n) {
    throw ValueError("[vmap] " + what + " has " + std::to_string(n) +
                     " tensors but its axes list " + std::to_string(a.per_leaf.size()) +
                     "; give one axis per tensor or one for all");
  }
  out.insert(out.end(), a.per_leaf.begin(), a.per_leaf.end());
}
}  // namespace detail

template <class F>
auto vmap(F f, VmapOptions opts = {}, Loc loc = Loc::current()) {
  std::string where = std::string(loc.file_name()) + ":" + std::to_string(loc.line());
  return [f = std::move(f), opts = std::move(opts), where](const auto&... args) mutable {
    using ArgsT = std::tuple<std::decay_t<decltype(args)>...>;
    using Out = std::decay_t<decltype(f(args...))>;
    if (!opts.in_axes.empty() && opts.in_axes.size() != sizeof...(args))
      throw ValueError("[vmap] in_axes has " + std::to_string(opts.in_axes.size()) +
                       " entries for " + std::to_string(sizeof...(args)) + " arguments");
    detail::VmapFlatSpec s;
    s.axis_size = opts.axis_size;
    s.where = where;
    std::vector<Tensor> flat;
    size_t i = 0;
    auto add = [&](const auto& a) {
      size_t before = flat.size();
      TreeTraits<std::decay_t<decltype(a)>>::flatten(a, flat);
      const std::string name = "args[" + std::to_string(i) + "]";
      tree_paths(a, name, s.in_paths);
      detail::expand_axes(opts.in_axes.empty() ? AxisSpec(0) : opts.in_axes[i],
                          flat.size() - before, name, s.in_axes);
      ++i;
    };
    (add(args), ...);
    ArgsT like{args...};
    std::optional<Out> out_like;
    auto body = [&](const std::vector<Tensor>& ph) {
      Out out = std::apply(f, tree_unflatten(like, ph));
      std::vector<Tensor> fo = tree_flatten(out);
      out_like = tree_unflatten(out, detail::undefined_like(fo));
      return fo;
    };
    s.out_paths = [&] {
      std::vector<std::string> p;
      if (out_like) tree_paths(*out_like, "out", p);
      return p;
    };
    if (opts.out_axes.by_leaf)
      s.out_axes = opts.out_axes.per_leaf;
    else
      s.out_axes = {opts.out_axes.all};
    std::vector<Tensor> flat_out = detail::vmap_flat(s, flat, body);
    // NOLINTNEXTLINE(bugprone-unchecked-optional-access): vmap_flat traced the body
    return tree_unflatten(*out_like, flat_out);
  };
}

}  // namespace lazax
