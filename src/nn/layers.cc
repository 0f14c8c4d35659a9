#include "lazax/nn/layers.h"

#include <cmath>

#include "lazax/api/random.h"
#include "lazax/core/error.h"

namespace lazax::nn {

namespace {
void check_positive(const char* who, const char* what, int64_t v) {
  if (v <= 0)
    throw ValueError(std::string("[nn::") + who + "] " + what + " must be positive, got " +
                     std::to_string(v));
}
void check_last_dim(const char* who, const Tensor& x, int64_t dim) {
  if (x.dim() == 0 || x.size(-1) != dim)
    throw ShapeError(std::string("[nn::") + who + "] expects an input whose last dimension is " +
                     std::to_string(dim) + ", got " + x.type_str());
}
}  // namespace

Tensor uniform_init(const std::vector<int64_t>& shape, double low, double high) {
  NoGrad off;
  return default_generator().uniform(shape) * (high - low) + low;
}

Tensor normal_init(const std::vector<int64_t>& shape, double mean, double std) {
  NoGrad off;
  return default_generator().normal(shape) * std + mean;
}

Linear::Linear(int64_t in_features, int64_t out_features, bool bias) {
  check_positive("Linear", "in_features", in_features);
  check_positive("Linear", "out_features", out_features);
  double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight = make_parameter(uniform_init({out_features, in_features}, -bound, bound));
  if (bias) this->bias = make_parameter(uniform_init({out_features}, -bound, bound));
}

Tensor Linear::forward(const Tensor& x) const {
  check_last_dim("Linear", x, weight.size(1));
  Tensor y = matmul(x, weight.t());
  if (!bias.defined()) return y;
  // Under Autocast the bias joins the product's dtype, as PyTorch's autocast linear casts it.
  const bool cast = autocast_dtype() != DType::f32 && bias.dtype() == DType::f32;
  return y + (cast ? bias.to(autocast_dtype()) : bias);
}

void Linear::visit(ModuleVisitor& v) {
  v.parameter("weight", weight);
  if (bias.defined()) v.parameter("bias", bias);
}

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim) {
  check_positive("Embedding", "num_embeddings", num_embeddings);
  check_positive("Embedding", "embedding_dim", embedding_dim);
  weight = make_parameter(normal_init({num_embeddings, embedding_dim}));
}

Tensor Embedding::forward(const Tensor& ids) const {
  if (!is_integer(ids.dtype()))
    throw DTypeError("[nn::Embedding] expects integer ids, got " + ids.type_str());
  return embedding(weight, ids);
}

void Embedding::visit(ModuleVisitor& v) { v.parameter("weight", weight); }

RMSNorm::RMSNorm(int64_t dim, double eps) : eps(eps) {
  check_positive("RMSNorm", "dim", dim);
  weight = make_parameter(ones({dim}));
}

Tensor RMSNorm::forward(const Tensor& x) const {
  check_last_dim("RMSNorm", x, weight.size(0));
  return x * rsqrt(mean(x * x, {-1}, true) + eps) * weight;
}

void RMSNorm::visit(ModuleVisitor& v) {
  v.parameter("weight", weight);
  v.attribute("eps", eps);
}

LayerNorm::LayerNorm(int64_t dim, double eps, bool bias) : eps(eps) {
  check_positive("LayerNorm", "dim", dim);
  weight = make_parameter(ones({dim}));
  if (bias) this->bias = make_parameter(zeros({dim}));
}

Tensor LayerNorm::forward(const Tensor& x) const {
  check_last_dim("LayerNorm", x, weight.size(0));
  return layer_norm(x, {weight.size(0)}, weight, bias, eps);  // the functional form
}

void LayerNorm::visit(ModuleVisitor& v) {
  v.parameter("weight", weight);
  if (bias.defined()) v.parameter("bias", bias);
  v.attribute("eps", eps);
}

Dropout::Dropout(double p) : p(p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("[nn::Dropout] p must be in [0, 1], got " + std::to_string(p));
}

Tensor Dropout::forward(const Tensor& x) const {
  if (!is_training() || p == 0.0) return x;
  if (p == 1.0) return x * 0.0;
  Tensor keep = default_generator().uniform(x.sizes(), x.dtype()) > p;
  return where(keep, x * (1.0 / (1.0 - p)), 0.0);
}

}  // namespace lazax::nn
