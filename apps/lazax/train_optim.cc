#include "train_optim.h"

#include <cmath>

#include "lazax/core/error.h"

namespace lazax::cli {
namespace {

// A scalar input (not a constant): a new value each step reuses the compiled graph.
Tensor scalar_input(double v) { return Tensor(Literal::scalar_of(DType::f32, v)); }

}  // namespace

TrainOptimizer::TrainOptimizer(std::vector<std::pair<std::string, Tensor>> params,
                               OptimConfig config)
    : params_(std::move(params)), config_(std::move(config)) {
  for (const auto& [name, p] : params_) {
    m_.push_back(zeros(p.sizes(), p.dtype()));
    if (config_.kind == "adamw") v_.push_back(zeros(p.sizes(), p.dtype()));
  }
}

Tensor TrainOptimizer::step(double lr) {
  ++step_;
  NoGrad no_grad;
  std::vector<Tensor> grads;
  Tensor sq;
  for (const auto& [name, p] : params_) {
    Tensor g = p.grad();
    if (!g.defined()) g = zeros_like(p);
    grads.push_back(g);
    Tensor s = square(g).sum();
    sq = sq.defined() ? sq + s : s;
  }
  Tensor norm = sqrt(sq);
  if (config_.clip > 0) {
    // PyTorch: coef = max_norm / (norm + 1e-6), clamped to 1.
    Tensor coef = clamp(scalar_input(config_.clip) / (norm + 1e-6), std::nullopt, 1.0);
    for (Tensor& g : grads) g = g * coef;
  }
  const Tensor lr_t = scalar_input(lr);
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor p = params_[i].second;
    const Tensor& g = grads[i];
    if (config_.kind == "adamw") {
      const double bc1 = 1 - std::pow(config_.beta1, static_cast<double>(step_));
      const double bc2 = 1 - std::pow(config_.beta2, static_cast<double>(step_));
      Tensor decayed = p * (1.0 - scalar_input(lr * config_.weight_decay));
      m_[i].copy_(m_[i] * config_.beta1 + g * (1 - config_.beta1));
      v_[i].copy_(v_[i] * config_.beta2 + square(g) * (1 - config_.beta2));
      Tensor denom = sqrt(v_[i]) / scalar_input(std::sqrt(bc2)) + config_.eps;
      p.copy_(decayed - m_[i] / denom * (lr_t / scalar_input(bc1)));
    } else {
      Tensor d = config_.weight_decay != 0 ? g + p * config_.weight_decay : g;
      if (config_.momentum != 0) {
        m_[i].copy_(step_ == 1 ? d : m_[i] * config_.momentum + d);
        d = m_[i];
      }
      p.copy_(p - d * lr_t);
    }
  }
  return norm;
}

std::vector<std::pair<std::string, Tensor>> TrainOptimizer::state() const {
  std::vector<std::pair<std::string, Tensor>> out;
  const char* first = config_.kind == "adamw" ? "optim.exp_avg." : "optim.momentum_buffer.";
  for (size_t i = 0; i < params_.size(); ++i) out.emplace_back(first + params_[i].first, m_[i]);
  for (size_t i = 0; i < v_.size(); ++i)
    out.emplace_back("optim.exp_avg_sq." + params_[i].first, v_[i]);
  return out;
}

void TrainOptimizer::load_state(const std::vector<std::pair<std::string, Literal>>& named,
                                int64_t step) {
  auto mine = state();
  for (size_t k = 0; k < mine.size(); ++k) {
    const Literal* found = nullptr;
    for (const auto& [n, l] : named)
      if (n == mine[k].first) found = &l;
    if (!found)
      throw ValueError("[train] the checkpoint lacks the optimizer state " + mine[k].first +
                       " (was it written with another --optimizer?)");
    if (found->type.str() != mine[k].second.type_str())
      throw ShapeError("[train] the checkpoint's " + mine[k].first + " is " + found->type.str() +
                       ", the model wants " + mine[k].second.type_str());
    Tensor t(*found);
    (k < m_.size() ? m_[k] : v_[k - m_.size()]).copy_(t);
  }
  step_ = step;
}

}  // namespace lazax::cli
