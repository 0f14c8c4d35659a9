// nn::Module: the base of lazax's neural-network modules (PyTorch's torch.nn.Module, as values).
//
// A module lists its parameters, buffers, static attributes and submodules in one place, its
// visit(), in registration order. Everything else (named_parameters, state_dict,
// load_state_dict, train/eval, to(dtype), and the tree the transforms see) is built on that list.
// Modules are values: copying one copies its tensor handles, which share their values (an
// in-place update through one copy is seen by all; tensor.h's aliasing rule).
//
// As a tree (tree.h) a module flattens to its parameters in registration order; buffers are
// captured tensors, and the attributes and training flags are part of the structure key. So
// grad(f)(model) returns a module of the same type whose parameters are the gradients, and a
// module can be an argument of an assume_pure or jit function.
//
// A module may carry a mixed-precision policy (policy.h; Haiku's hk.mixed_precision.set_policy):
// calling it (operator(), which is call_module below: PyTorch's Module.__call__ around forward)
// runs forward on its inputs and parameters converted to compute_dtype and converts the results
// to output_dtype, while the stored parameters keep param_dtype. docs/PRECISION.md.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "lazax/api/autocast.h"
#include "lazax/autodiff/tree.h"
#include "lazax/nn/policy.h"

namespace lazax::nn {

class Module;
namespace detail {
// Gives a module copy made by call_module its policy's compute dtype: converts the parameters
// of `m` and of its submodules without a policy of their own, which become inheriting ones.
void prepare_policy_copy(Module& m);
}  // namespace detail
using StateDict = std::map<std::string, Tensor>;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// What a module's visit() reports to.
class ModuleVisitor {
 public:
  virtual ~ModuleVisitor() = default;
  virtual void parameter(const std::string& name, Tensor& t) = 0;
  virtual void buffer(const std::string& name, Tensor& t) = 0;
  virtual void module(const std::string& name, Module& m) = 0;
  // A static setting that changes what forward computes without showing in the parameters'
  // shapes (heads, eps, dropout probability): part of the tree's structure key.
  virtual void attribute(const std::string& name, double value) = 0;
};

class Module {
 public:
  virtual ~Module() = default;
  Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  // Lists the parameters, buffers, attributes and submodules, in registration order.
  virtual void visit(ModuleVisitor& v) = 0;
  // The name of the module's type, for messages ("Linear").
  virtual std::string type_name() const = 0;

  // Dotted names ("layers.0.attention.wq.weight"), in registration order.
  NamedTensors named_parameters() const;
  std::vector<Tensor> parameters() const;
  NamedTensors named_buffers() const;
  // Parameters and buffers by name. The tensors are the module's handles (not copies).
  StateDict state_dict() const;
  // Copies each entry into the tensor of that name (in place: every handle of the module's
  // tensors sees the new values). strict: a name the module lacks or a tensor of the module
  // missing from `sd` is an error. A dtype or shape that differs is always an error. The errors
  // name every bad entry, and nothing is changed unless every entry is good.
  void load_state_dict(const StateDict& sd, bool strict = true);

  // Sets the training flag of this module and all its submodules (Dropout acts in training).
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  // Converts every floating parameter and buffer to `dtype` (new leaves; parameters keep
  // requiring grad). Rebinds this module's handles only, not those of copies made before.
  void to(DType dtype);
  // Number of parameter elements.
  int64_t num_parameters() const;

  // The mixed-precision policy of this module and of its submodules that have none of their own
  // (they inherit it): a call (call_module) converts the floating inputs, and the parameters of
  // this module and of those submodules, to p.compute_dtype, runs forward, and converts the
  // floating results to p.output_dtype. The converts are recorded ops (traced, differentiated:
  // the gradients of f32 parameters are f32). set_policy converts the floating parameters it
  // governs to p.param_dtype now (new leaves, as to()); a no-op when they already are.
  // A submodule with a policy of its own (a norm kept in f32) converts at its own boundary.
  void set_policy(const Policy& p);
  void clear_policy() { policy_.reset(); }
  // This module's own policy, or null.
  const Policy* policy() const { return policy_ && !inherited_ ? &*policy_ : nullptr; }
  // The policy a call runs this module under: its own, or one inherited from an ancestor's call
  // (set on the copy of the module that such a call runs, never on the caller's module); null.
  const Policy* policy_in_effect() const { return policy_ ? &*policy_ : nullptr; }
  bool inherits_policy() const { return policy_ && inherited_; }

  // Calls fn(full_name, tensor, is_parameter) for every tensor, in registration order.
  template <class Fn>
  void for_each_tensor(Fn&& fn) {
    struct V : ModuleVisitor {
      Fn& fn;
      std::string prefix;
      V(Fn& f, std::string p) : fn(f), prefix(std::move(p)) {}
      void parameter(const std::string& n, Tensor& t) override { fn(prefix + n, t, true); }
      void buffer(const std::string& n, Tensor& t) override { fn(prefix + n, t, false); }
      void module(const std::string& n, Module& m) override {
        V sub(fn, prefix + n + ".");
        m.visit(sub);
      }
      void attribute(const std::string&, double) override {}
    } v(fn, "");
    visit(v);
  }
  template <class Fn>
  void for_each_module(Fn&& fn) {  // this module, then its submodules depth-first
    fn(*this);
    struct V : ModuleVisitor {
      Fn& fn;
      explicit V(Fn& f) : fn(f) {}
      void parameter(const std::string&, Tensor&) override {}
      void buffer(const std::string&, Tensor&) override {}
      void module(const std::string&, Module& m) override { m.for_each_module(fn); }
      void attribute(const std::string&, double) override {}
    } v(fn);
    visit(v);
  }

 protected:
  // A parameter tensor: a leaf that requires grad.
  static Tensor make_parameter(const Tensor& value);

 private:
  friend void detail::prepare_policy_copy(Module& m);
  bool training_ = true;
  std::optional<Policy> policy_;
  bool inherited_ = false;  // policy_ came from an ancestor's call
};

// Haiku's hk.mixed_precision.set_policy(cls, policy): gives every module of type M in `root`
// (root included) the policy `p`, e.g. set_policy<RMSNorm>(model, Policy::parse("c=f32,o=bf16"))
// keeps a bf16 model's norms in f32.
template <class M>
void set_policy(Module& root, const Policy& p) {
  root.for_each_module([&p](Module& m) {
    if (dynamic_cast<M*>(&m) != nullptr) m.set_policy(p);
  });
}

// A module call: method(m, args...) under m's policy (set_policy), for a method other than
// forward (Llama::logits). Without a policy, method as is; with its own, on a copy of m whose
// governed parameters are converted, with the floating tensors of the tree arguments converted
// to the compute dtype, and the results to the output dtype; an inherited one converts the
// arguments only (the owner converted the parameters, and its call converts the results).
// Inside a module with a policy the policy decides the dtypes: Autocast is off in its method.
template <class M, class Method, class... Args>
auto call_module_method(const M& m, const Method& method, const Args&... args) {
  auto compute = [&m](const auto& a) {
    using A = std::decay_t<decltype(a)>;
    if constexpr (requires(std::vector<Tensor>& out) { TreeTraits<A>::flatten(a, out); })
      return m.policy_in_effect()->cast_to_compute(a);
    else
      return a;
  };
  const Policy* p = m.policy_in_effect();
  if (p == nullptr) return method(m, args...);
  if (m.inherits_policy()) return method(m, compute(args)...);
  M run = m;
  detail::prepare_policy_copy(run);
  Autocast off(DType::f32);
  return p->cast_to_output(method(run, compute(args)...));
}

// The module call (PyTorch's Module.__call__): m.forward(args...) under m's policy, as
// call_module_method. Every module's operator() is this.
template <class M, class... Args>
auto call_module(const M& m, const Args&... args) {
  return call_module_method(
      m, [](const M& run, const auto&... a) { return run.forward(a...); }, args...);
}

// visit() helper for a list of submodules: names them "name.0", "name.1", ...
template <class M>
void visit_list(ModuleVisitor& v, const std::string& name, std::vector<M>& ms) {
  for (size_t i = 0; i < ms.size(); ++i) v.module(name + "." + std::to_string(i), ms[i]);
}

namespace detail {
// The tree view of a module: its parameters; its attributes and training flags as the key.
void module_flatten(const Module& m, std::vector<Tensor>& out);
void module_unflatten(Module& m, const Tensor*& it);
void module_structure(const Module& m, std::string& s);
void module_key(const Module& m, TreeKey& k);
}  // namespace detail

}  // namespace lazax::nn

namespace lazax {
template <class T>
struct TreeTraits<T, std::enable_if_t<std::is_base_of_v<nn::Module, T>>> {
  static void flatten(const T& m, std::vector<Tensor>& out) { nn::detail::module_flatten(m, out); }
  static T unflatten(const T& like, const Tensor*& it) {
    T r = like;
    nn::detail::module_unflatten(r, it);
    return r;
  }
  static void paths(const T& m, const std::string& prefix, std::vector<std::string>& out) {
    for (const auto& [name, t] : m.named_parameters()) {
      std::string path = prefix;
      path += '.';
      path += name;
      out.push_back(std::move(path));
    }
  }
  static void structure(const T& m, std::string& s) { nn::detail::module_structure(m, s); }
  static void key(const T& m, TreeKey& k) {
    k.add(TreeKey::kStruct);
    k.add(static_cast<uint64_t>(typeid(T).hash_code()));
    nn::detail::module_key(m, k);
    k.add(TreeKey::kEnd);
  }
};
}  // namespace lazax
