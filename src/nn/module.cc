#include "lazax/nn/module.h"

#include <set>
#include <utility>

#include "lazax/core/error.h"

namespace lazax::nn {

namespace {
// The visiting methods change nothing by themselves; the const accessors visit through this.
Module& mut(const Module& m) { return const_cast<Module&>(m); }  // NOLINT
}  // namespace

Tensor Module::make_parameter(const Tensor& value) {
  Tensor t = value.detach();
  t.requires_grad_();
  return t;
}

NamedTensors Module::named_parameters() const {
  NamedTensors out;
  mut(*this).for_each_tensor([&](const std::string& n, Tensor& t, bool is_param) {
    if (is_param) out.emplace_back(n, t);
  });
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  mut(*this).for_each_tensor([&](const std::string&, Tensor& t, bool is_param) {
    if (is_param) out.push_back(t);
  });
  return out;
}

NamedTensors Module::named_buffers() const {
  NamedTensors out;
  mut(*this).for_each_tensor([&](const std::string& n, Tensor& t, bool is_param) {
    if (!is_param) out.emplace_back(n, t);
  });
  return out;
}

StateDict Module::state_dict() const {
  StateDict sd;
  mut(*this).for_each_tensor([&](const std::string& n, Tensor& t, bool) { sd.emplace(n, t); });
  return sd;
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (const Tensor& t : parameters()) n += t.numel();
  return n;
}

void Module::load_state_dict(const StateDict& sd, bool strict) {
  std::vector<std::string> problems;
  std::vector<std::pair<Tensor, Tensor>> copies;  // (module tensor, value)
  std::set<std::string> seen;
  for_each_tensor([&](const std::string& n, Tensor& t, bool) {
    seen.insert(n);
    auto it = sd.find(n);
    if (it == sd.end()) {
      if (strict) problems.push_back("missing entry '" + n + "' (" + t.type_str() + ")");
      return;
    }
    const Tensor& v = it->second;
    if (!v.defined()) {
      problems.push_back("entry '" + n + "' is an undefined tensor");
    } else if (v.dtype() != t.dtype() || v.shape() != t.shape()) {
      problems.push_back("entry '" + n + "' is " + v.type_str() + " but the module's is " +
                         t.type_str());
    } else {
      copies.emplace_back(t, v);
    }
  });
  if (strict) {
    for (const auto& [n, v] : sd) {
      if (!seen.count(n)) problems.push_back("unexpected entry '" + n + "'");
    }
  }
  if (!problems.empty()) {
    std::string msg = "[nn::" + type_name() + "::load_state_dict] the state dict does not fit";
    for (const std::string& p : problems) msg += "; " + p;
    msg += ". Nothing was loaded; pass strict=false to skip missing and unexpected entries";
    throw ValueError(msg);
  }
  NoGrad off;
  for (auto& [t, v] : copies) t.copy_(v);
}

void Module::train(bool on) {
  for_each_module([on](Module& m) { m.training_ = on; });
}

void Module::to(DType dtype) {
  NoGrad off;
  for_each_tensor([&](const std::string&, Tensor& t, bool is_param) {
    if (!is_floating(t.dtype()) || t.dtype() == dtype) return;
    t = t.to(dtype).detach();
    if (is_param) t.requires_grad_();
  });
}

namespace {
// Visits the parameters governed by a module's policy: its own and those of its submodules
// without a policy of their own (calling on_module for each such submodule first).
template <class OnParam, class OnModule>
struct GovernedVisitor : ModuleVisitor {
  OnParam on_param;
  OnModule on_module;
  GovernedVisitor(OnParam p, OnModule m) : on_param(std::move(p)), on_module(std::move(m)) {}
  void parameter(const std::string&, Tensor& t) override { on_param(t); }
  void buffer(const std::string&, Tensor&) override {}
  void module(const std::string&, Module& m) override {
    if (m.policy() != nullptr) return;  // it converts at its own boundary
    on_module(m);
    m.visit(*this);
  }
  void attribute(const std::string&, double) override {}
};
}  // namespace

void Module::set_policy(const Policy& p) {
  for (DType t : {p.param_dtype, p.compute_dtype, p.output_dtype})
    lazax::detail::check_cast_dtype(t, ("nn::" + type_name() + "::set_policy").c_str());
  policy_ = p;
  inherited_ = false;
  NoGrad off;
  GovernedVisitor v(
      [&p](Tensor& t) {
        if (!t.defined() || !is_floating(t.dtype()) || t.dtype() == p.param_dtype) return;
        const bool grad = t.requires_grad();
        t = t.to(p.param_dtype).detach();
        if (grad) t.requires_grad_();
      },
      [](Module&) {});
  visit(v);
}

namespace detail {

void prepare_policy_copy(Module& m) {
  const Policy p = *m.policy_;
  GovernedVisitor v(
      [&p](Tensor& t) {
        if (t.defined() && is_floating(t.dtype())) t = t.to(p.compute_dtype);
      },
      [&p](Module& sub) {
        sub.policy_ = p;
        sub.inherited_ = true;
      });
  m.visit(v);
}

namespace {
// Visits the parameters of the module tree without building their names (the transforms flatten
// on every call).
template <class Fn>
struct ParamVisitor : ModuleVisitor {
  Fn fn;
  explicit ParamVisitor(Fn f) : fn(std::move(f)) {}
  void parameter(const std::string&, Tensor& t) override { fn(t); }
  void buffer(const std::string&, Tensor&) override {}
  void module(const std::string&, Module& m) override { m.visit(*this); }
  void attribute(const std::string&, double) override {}
};
}  // namespace

void module_flatten(const Module& m, std::vector<Tensor>& out) {
  ParamVisitor v([&out](Tensor& t) { out.push_back(t); });
  mut(m).visit(v);
}

void module_unflatten(Module& m, const Tensor*& it) {
  ParamVisitor v([&it](Tensor& t) { t = *it++; });
  m.visit(v);
}

namespace {
// Visits names, tensor types and attributes of the whole module tree.
struct KeyVisitor : ModuleVisitor {
  std::string* s = nullptr;
  TreeKey* k = nullptr;
  void parameter(const std::string& n, Tensor& t) override {
    if (s) {
      *s += n + ":";
      TreeTraits<Tensor>::structure(t, *s);
    }
    if (k) TreeTraits<Tensor>::key(t, *k);
  }
  void buffer(const std::string&, Tensor&) override {}
  void module(const std::string& n, Module& m) override {
    const Policy* p = m.policy_in_effect();
    if (s) {
      *s += n + "=" + m.type_name() + (m.is_training() ? "" : "(eval)");
      if (p) *s += (m.inherits_policy() ? "(inherited policy " : "(policy ") + p->str() + ")";
      *s += "{";
    }
    if (k) k->add(m.is_training() ? 1 : 0);
    if (k && p) {  // (a policy changes what forward computes)
      k->add(TreeKey::kStruct | (m.inherits_policy() ? 1u << 24 : 0u) |
             static_cast<uint64_t>(p->param_dtype) << 16 |
             static_cast<uint64_t>(p->compute_dtype) << 8 | static_cast<uint64_t>(p->output_dtype));
    }
    m.visit(*this);
    if (s) *s += "}";
    if (k) k->add(TreeKey::kEnd);
  }
  void attribute(const std::string& n, double v) override {
    if (s) *s += n + "=" + std::to_string(v) + ";";
    if (k) {
      k->add(TreeKey::kFloating);
      k->add(std::bit_cast<uint64_t>(v));
    }
  }
};
}  // namespace

void module_structure(const Module& m, std::string& s) {
  KeyVisitor v;
  v.s = &s;
  v.module("module", mut(m));
}

void module_key(const Module& m, TreeKey& k) {
  KeyVisitor v;
  v.k = &k;
  v.module("", mut(m));
}

}  // namespace detail
}  // namespace lazax::nn
