// JAX-style functional transforms over functions of trees of tensors (see tree.h):
//   vjp(f, args...)            -> {outputs, vjp_fn}; vjp_fn(ct) returns a tuple, one per arg
//   jvp(f, primals, tangents)  -> {outputs, output tangents} (primals/tangents are tuples)
//   grad(f[, argnums<I...>])   -> a function returning d f / d arg (a tuple for several argnums)
//   value_and_grad(f[, argnums<I...>][, has_aux])
//   custom_vjp(fwd, bwd), stop_gradient(x)
// They are built on the tape (the same VJP/JVP rules as backward()), so they are lazy, and they
// nest: grad(grad(f)) and jvp of grad work.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lazax/autodiff/tree.h"
#include "lazax/core/error.h"

namespace lazax {

template <int... I>
struct argnums_t {};
template <int... I>
inline constexpr argnums_t<I...> argnums{};
struct has_aux_t {};
inline constexpr has_aux_t has_aux{};

namespace detail {
// Non-templated engine entry points (src/autodiff/transforms.cc).
struct VjpState;
std::vector<Tensor> fresh_inputs(const std::vector<Tensor>& primals);
bool outer_tracking(const std::vector<Tensor>& primals);
std::vector<Tensor> backward_flat(const std::vector<Tensor>& outs, const std::vector<Tensor>& cts,
                                  const std::vector<Tensor>& inputs, bool create_graph);
std::vector<Tensor> forward_flat(const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& tangents,
                                 const std::vector<Tensor>& outs);
std::vector<Tensor> detach_all(const std::vector<Tensor>& xs);
void check_grad_output(const std::vector<Tensor>& out, const char* who);
void check_grad_inputs(const std::vector<Tensor>& in, int argnum, const char* who);
void check_tangents(const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents);
// custom_vjp: attaches one tape entry with a user VJP to `outs`.
std::vector<Tensor> attach_custom_vjp(
    const std::vector<Tensor>& inputs, const std::vector<Tensor>& outs,
    std::function<std::vector<Tensor>(const std::vector<Tensor>&)> bwd);
// The same with a VJP that also gets the inputs as the tape saved them at the call (values of
// that time, still on the tape: what a VJP needs to be differentiable again).
using CustomVjpWithInputs = std::function<std::vector<Tensor>(
    const std::vector<Tensor>& cts, std::span<const Tensor> saved_inputs)>;
std::vector<Tensor> attach_custom_vjp(const std::vector<Tensor>& inputs,
                                      const std::vector<Tensor>& outs, CustomVjpWithInputs bwd);
// A JVP rule: (input tangents, undefined where zero; saved inputs) -> output tangents.
using CustomJvp = std::function<std::vector<Tensor>(const std::vector<Tensor>& tangents,
                                                    std::span<const Tensor> saved_inputs)>;
// The same for results just made (assume_pure's): those nothing else holds are used as they are
// instead of detached copies. `state` is kept alive as long as `bwd` (which may point into it).
// Without `jvp`, forward mode through the entry is a NotDifferentiableError (as JAX's
// custom_vjp).
std::vector<Tensor> attach_custom_vjp(const std::vector<Tensor>& inputs, std::vector<Tensor>&& outs,
                                      CustomVjpWithInputs bwd,
                                      std::shared_ptr<void> state = nullptr,
                                      CustomJvp jvp = nullptr);
}  // namespace detail

// ---- vjp ----
template <class F, class... Args>
auto vjp(F&& f, const Args&... primals) {
  using ArgsTuple = std::tuple<Args...>;
  ArgsTuple like{primals...};
  std::vector<Tensor> flat_in = tree_flatten(like);
  bool create_graph = detail::outer_tracking(flat_in);
  std::vector<Tensor> fresh = detail::fresh_inputs(flat_in);
  ArgsTuple args = tree_unflatten(like, fresh);
  auto out = [&] {
    EnableGrad on;
    return std::apply(f, args);
  }();
  using Out = decltype(out);
  std::vector<Tensor> flat_out = tree_flatten(out);
  auto vjp_fn = [flat_out, fresh, like, create_graph](const Out& ct) -> ArgsTuple {
    std::vector<Tensor> cts = tree_flatten(ct);
    if (cts.size() != flat_out.size())
      throw ValueError("[vjp] the cotangent has " + std::to_string(cts.size()) +
                       " tensors, the function's output " + std::to_string(flat_out.size()));
    auto g = detail::backward_flat(flat_out, cts, fresh, create_graph);
    return tree_unflatten(like, g);
  };
  Out result = create_graph ? out : tree_unflatten(out, detail::detach_all(flat_out));
  return std::make_pair(result, std::function<ArgsTuple(const Out&)>(vjp_fn));
}

// ---- jvp ----
template <class F, class... Args>
auto jvp(F&& f, const std::tuple<Args...>& primals, const std::tuple<Args...>& tangents) {
  std::vector<Tensor> flat_in = tree_flatten(primals);
  std::vector<Tensor> flat_tan = tree_flatten(tangents);
  detail::check_tangents(flat_in, flat_tan);
  std::vector<Tensor> fresh = detail::fresh_inputs(flat_in);
  auto args = tree_unflatten(primals, fresh);
  auto out = [&] {
    EnableGrad on;
    return std::apply(f, args);
  }();
  std::vector<Tensor> flat_out = tree_flatten(out);
  std::vector<Tensor> tan_out = detail::forward_flat(fresh, flat_tan, flat_out);
  bool keep = detail::outer_tracking(flat_in) || detail::outer_tracking(flat_tan);
  auto outs = keep ? out : tree_unflatten(out, detail::detach_all(flat_out));
  return std::make_pair(outs, tree_unflatten(out, tan_out));
}

namespace detail {
template <class F, int... I, class... Args>
auto grad_impl(F& f, bool with_aux, const char* who, const Args&... args) {
  using ArgsTuple = std::tuple<Args...>;
  ArgsTuple like{args...};
  // Flatten only the differentiated arguments; the others are passed through unchanged.
  auto diff = std::make_tuple(std::get<I>(like)...);
  std::vector<Tensor> flat_in = tree_flatten(diff);
  (check_grad_inputs(tree_flatten(std::get<I>(like)), I, who), ...);
  bool create_graph = outer_tracking(flat_in);
  std::vector<Tensor> fresh = fresh_inputs(flat_in);
  auto diff_fresh = tree_unflatten(diff, fresh);
  ArgsTuple call_args = like;
  [&]<size_t... K>(std::index_sequence<K...>) {
    ((std::get<I>(call_args) = std::get<K>(diff_fresh)), ...);
  }(std::make_index_sequence<sizeof...(I)>{});
  auto out = [&] {
    EnableGrad on;
    return std::apply(f, call_args);
  }();
  Tensor value;
  if constexpr (requires { out.first; }) {
    value = out.first;
  } else {
    value = out;
  }
  (void)with_aux;
  check_grad_output({value}, who);
  std::vector<Tensor> g = backward_flat({value}, {Tensor()}, fresh, create_graph);
  auto grads = tree_unflatten(diff, g);
  auto out_ret = create_graph ? out : tree_unflatten(out, detach_all(tree_flatten(out)));
  return std::make_pair(out_ret, grads);
}
template <class T>
auto unwrap_single(T&& t) {
  // NOLINTNEXTLINE(bugprone-branch-clone): the branches return different types
  if constexpr (std::tuple_size_v<std::decay_t<T>> == 1) {
    return std::get<0>(std::forward<T>(t));
  } else {
    return std::forward<T>(t);
  }
}
}  // namespace detail

// grad(f): d f / d (first argument). f must return a scalar tensor.
template <class F, int... I>
auto grad(F f, argnums_t<I...>) {
  return [f](const auto&... args) mutable {
    return detail::unwrap_single(detail::grad_impl<F, I...>(f, false, "grad", args...).second);
  };
}
template <class F>
auto grad(F f) {
  return grad(f, argnums<0>);
}

// value_and_grad(f): (value, grad); with has_aux, f returns std::pair<Tensor, Aux> and the result
// is ((value, aux), grad).
template <class F, int... I>
auto value_and_grad(F f, argnums_t<I...>) {
  return [f](const auto&... args) mutable {
    auto [out, g] = detail::grad_impl<F, I...>(f, false, "value_and_grad", args...);
    return std::make_pair(out, detail::unwrap_single(std::move(g)));
  };
}
template <class F, int... I>
auto value_and_grad(F f, argnums_t<I...> a, has_aux_t) {
  return value_and_grad(f, a);  // the pair output carries the aux through
}
template <class F>
auto value_and_grad(F f) {
  return value_and_grad(f, argnums<0>);
}
template <class F>
auto value_and_grad(F f, has_aux_t) {
  return value_and_grad(f, argnums<0>);
}

// custom_vjp(fwd, bwd): fwd(args...) -> std::pair<Out, Residuals>;
// bwd(const Residuals&, const Out& ct) -> std::tuple<Args...> of cotangents (an undefined
// Tensor means zero). The returned function behaves as fwd's first result, differentiated by bwd.
template <class Fwd, class Bwd>
auto custom_vjp(Fwd fwd, Bwd bwd) {
  return [fwd, bwd](const auto&... args) {
    using ArgsTuple = std::tuple<std::decay_t<decltype(args)>...>;
    ArgsTuple like{args...};
    std::vector<Tensor> flat_in = tree_flatten(like);
    auto [out, res] = [&] {
      NoGrad off;
      return fwd(args...);
    }();
    using Out = std::decay_t<decltype(out)>;
    std::vector<Tensor> flat_out = tree_flatten(out);
    Out out_like = out;
    auto res_copy = res;
    auto user_bwd = [bwd, res_copy, out_like](const std::vector<Tensor>& cts) {
      ArgsTuple g = bwd(res_copy, tree_unflatten(out_like, cts));
      return tree_flatten(g);
    };
    return tree_unflatten(out, detail::attach_custom_vjp(flat_in, flat_out, user_bwd));
  };
}

// Blocks gradients: the value, with no tape history.
template <class T>
T stop_gradient(const T& x) {
  return tree_unflatten(x, detail::detach_all(tree_flatten(x)));
}

}  // namespace lazax
