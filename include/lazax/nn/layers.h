// Basic modules with PyTorch's names, layouts and default initializations. Random
// initializations draw from lazax::default_generator() (seed it with manual_seed).
// A module's operator() is its call (call_module, module.h: forward under its precision
// policy); forward is the computation alone.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lazax/nn/module.h"

namespace lazax::nn {

// Initializers (torch.nn.init), drawing from the default generator.
Tensor uniform_init(const std::vector<int64_t>& shape, double low, double high);
Tensor normal_init(const std::vector<int64_t>& shape, double mean = 0.0, double std = 1.0);

// y = x W^T + b, weight [out, in]. Initialization as torch.nn.Linear: weight and bias
// U(-1/sqrt(in), 1/sqrt(in)) (kaiming_uniform with a = sqrt(5)).
class Linear : public Module {
 public:
  Linear() = default;
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return call_module(*this, x); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "Linear"; }

  Tensor weight;  // [out, in]
  Tensor bias;    // [out], or undefined
};

// Rows of weight [num, dim] picked by integer ids. Initialization N(0, 1).
class Embedding : public Module {
 public:
  Embedding() = default;
  Embedding(int64_t num_embeddings, int64_t embedding_dim);
  Tensor forward(const Tensor& ids) const;
  Tensor operator()(const Tensor& ids) const { return call_module(*this, ids); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "Embedding"; }

  Tensor weight;  // [num, dim]
};

// x / sqrt(mean(x^2, last dim) + eps) * weight (torch.nn.RMSNorm); weight ones.
class RMSNorm : public Module {
 public:
  RMSNorm() = default;
  explicit RMSNorm(int64_t dim, double eps = 1e-5);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return call_module(*this, x); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "RMSNorm"; }

  Tensor weight;
  double eps = 1e-5;
};

// (x - mean) / sqrt(var + eps) * weight + bias over the last dim (torch.nn.LayerNorm, biased
// variance); weight ones, bias zeros (bias optional).
class LayerNorm : public Module {
 public:
  LayerNorm() = default;
  explicit LayerNorm(int64_t dim, double eps = 1e-5, bool bias = true);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return call_module(*this, x); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "LayerNorm"; }

  Tensor weight, bias;
  double eps = 1e-5;
};

// In training, zeroes each element with probability p and scales the others by 1/(1-p), with
// numbers from the default generator; in eval, the identity (torch.nn.Dropout).
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return call_module(*this, x); }
  void visit(ModuleVisitor& v) override { v.attribute("p", p); }
  std::string type_name() const override { return "Dropout"; }

  double p = 0.5;
};

}  // namespace lazax::nn
