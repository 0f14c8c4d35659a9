// The optimizer base: parameter checks, step bookkeeping, zero_grad and the state dict.
#include "lazax/optim/optimizer.h"

#include <cmath>
#include <map>
#include <set>

#include "lazax/api/tensor_impl.h"
#include "lazax/core/error.h"

namespace lazax::optim {
namespace {

[[noreturn]] void fail(const std::string& kind, const std::string& what) {
  throw ValueError("[" + kind + "] " + what);
}

}  // namespace

NamedTensors numbered(const std::vector<Tensor>& tensors) {
  NamedTensors out;
  out.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) out.emplace_back(std::to_string(i), tensors[i]);
  return out;
}

Optimizer::Optimizer(NamedTensors params, double lr, std::string kind)
    : params_(std::move(params)), state_(params_.size()), lr_(lr), kind_(std::move(kind)) {
  std::set<std::string> names;
  std::set<const TensorImpl*> impls;
  for (const auto& [name, p] : params_) {
    if (name.empty()) fail(kind_, "a parameter has an empty name; give every parameter a name");
    if (!names.insert(name).second)
      fail(kind_, "the parameter name '" + name + "' appears twice; names must be unique");
    if (!p.defined()) fail(kind_, "parameter '" + name + "' is an undefined tensor");
    if (!is_floating(p.dtype())) {
      fail(kind_, "parameter '" + name + "' is " + p.type_str() +
                      "; only floating tensors can be optimized");
    }
    if (!impls.insert(p.impl()).second) {
      fail(kind_, "parameter '" + name +
                      "' is the same tensor as an earlier parameter; pass each tensor once");
    }
  }
  if (!(lr >= 0) || !std::isfinite(lr))
    fail(kind_, "invalid learning rate " + std::to_string(lr) + "; it must be >= 0 and finite");
}

void Optimizer::set_lr(double lr) {
  if (!(lr >= 0) || !std::isfinite(lr))
    fail(kind_, "invalid learning rate " + std::to_string(lr) + "; it must be >= 0 and finite");
  lr_ = lr;
}

Tensor Optimizer::scalar(double v, DType dtype) { return Tensor(Literal::scalar_of(dtype, v)); }

Tensor Optimizer::grad_of(size_t i) const {
  const Tensor& p = params_[i].second;
  Tensor g = p.grad();
  return g.dtype() == p.dtype() ? g : g.to(p.dtype());
}

void Optimizer::step() {
  std::vector<size_t> which;
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].second.grad().defined()) which.push_back(i);
  for (size_t i : which) {  // checked before anything changes
    const auto& [name, p] = params_[i];
    if (p.grad().shape() != p.shape()) {
      fail(kind_, "the gradient of parameter '" + name + "' is " + p.grad().type_str() +
                      " but the parameter is " + p.type_str());
    }
  }
  NoGrad off;
  for (size_t i : which) ++state_[i].step;
  try {
    update(which);
  } catch (...) {
    for (size_t i : which) --state_[i].step;
    throw;
  }
  ++step_;
}

void Optimizer::zero_grad() {
  for (auto& [name, p] : params_) p.set_grad(Tensor());
}

OptimizerState Optimizer::state_dict() const {
  OptimizerState s{kind_, lr_, step_, {}};
  const std::vector<std::string> names = state_names();
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamState& ps = state_[i];
    if (ps.tensors.empty()) continue;
    const std::string& p = params_[i].first;
    for (size_t k = 0; k < names.size(); ++k)
      s.tensors.emplace_back(p + "." + names[k], ps.tensors[k]);
    s.tensors.emplace_back(p + ".step", Tensor(Literal::scalar<int64_t>(ps.step)));
  }
  return s;
}

void Optimizer::check_state_dict(const OptimizerState& s) const {
  if (s.kind != kind_) {
    fail(kind_, "cannot load the state of a '" + s.kind + "' optimizer into a '" + kind_ +
                    "' optimizer; use the same optimizer as when it was saved");
  }
  if (s.step < 0) fail(kind_, "the state's step count " + std::to_string(s.step) + " is negative");
  if (!(s.lr >= 0) || !std::isfinite(s.lr))
    fail(kind_, "the state's learning rate " + std::to_string(s.lr) + " is invalid");
  const std::vector<std::string> names = state_names();
  // Every entry this optimizer knows: name -> (parameter, slot; slot names.size() is the step).
  std::map<std::string, std::pair<size_t, size_t>> known;
  for (size_t i = 0; i < params_.size(); ++i) {
    for (size_t k = 0; k <= names.size(); ++k)
      known[params_[i].first + "." + (k < names.size() ? names[k] : "step")] = {i, k};
  }
  std::vector<size_t> found(params_.size(), 0);
  std::set<std::string> seen;
  for (const auto& [name, t] : s.tensors) {
    auto it = known.find(name);
    if (it == known.end()) {
      fail(
          kind_, "unexpected state entry '" + name + "': it names no parameter and state (" +
                     std::to_string(params_.size()) + " parameters; states " +
                     [&] {
                       std::string all;
                       for (const std::string& n : names) all += n + ", ";
                       return all + "step";
                     }() +
                     ")");
    }
    if (!seen.insert(name).second) fail(kind_, "the state entry '" + name + "' appears twice");
    const auto [i, k] = it->second;
    const Tensor& p = params_[i].second;
    if (!t.defined()) fail(kind_, "the state entry '" + name + "' is an undefined tensor");
    if (k == names.size()) {
      if (t.dtype() != DType::i64 || t.dim() != 0)
        fail(kind_, "the state entry '" + name + "' is " + t.type_str() + ", expected i64[]");
    } else if (t.dtype() != p.dtype() || t.shape() != p.shape()) {
      fail(kind_, "the state entry '" + name + "' is " + t.type_str() + " but parameter '" +
                      params_[i].first + "' is " + p.type_str());
    }
    ++found[i];
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    if (found[i] != 0 && found[i] != names.size() + 1) {
      std::string missing;
      for (size_t k = 0; k <= names.size(); ++k) {
        const std::string n = params_[i].first + "." + (k < names.size() ? names[k] : "step");
        if (!seen.count(n)) missing += (missing.empty() ? "'" : ", '") + n + "'";
      }
      fail(kind_,
           "the state of parameter '" + params_[i].first + "' is incomplete: missing " + missing);
    }
  }
}

void Optimizer::load_state_dict(const OptimizerState& s) {
  check_state_dict(s);
  const std::vector<std::string> names = state_names();
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : s.tensors) by_name[name] = &t;
  std::vector<ParamState> state(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string& p = params_[i].first;
    auto step = by_name.find(p + ".step");
    if (step == by_name.end()) continue;
    state[i].step = static_cast<int64_t>(step->second->item());
    // The optimizer never updates its state in place, so sharing the handles is safe.
    for (const std::string& n : names) state[i].tensors.push_back(*by_name.at(p + "." + n));
  }
  state_ = std::move(state);
  step_ = s.step;
  lr_ = s.lr;
}

}  // namespace lazax::optim
