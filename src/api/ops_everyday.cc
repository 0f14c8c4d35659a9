// Everyday composites (PyTorch names and semantics): var and std, linspace, eye, tril and triu,
// one_hot, the functional layer_norm and dropout. Each is written with Tensor ops, so gradients
// come from the primitives' rules.
#include <algorithm>
#include <cmath>
#include <string>

#include "lazax/api/random.h"
#include "lazax/api/tensor_impl.h"

namespace lazax {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

void require_floating(const Tensor& x, const char* op, const char* what) {
  if (!is_floating(x.dtype()))
    throw DTypeError(std::string("[") + op + "] " + what + " a floating tensor, got " +
                     x.type_str() + "; convert it first, e.g. x.to(DType::f32)");
}

Tensor iota(DType t, const Shape& s, int64_t d) {
  return record_op(OpCode::iota, {}, IotaAttrs{t, s, d});
}

// The number of elements var/std reduce over (every dim when dims is empty), checking dims.
int64_t reduced_count(const Tensor& x, const std::vector<int64_t>& dims, const char* op) {
  int64_t n = 1;
  std::vector<int64_t> seen;
  for (int64_t d : dims) {
    const int64_t a = norm_dim(d, x.dim(), op);
    if (std::find(seen.begin(), seen.end(), a) != seen.end())
      throw ValueError(std::string("[") + op + "] dim " + str(a) + " appears more than once in " +
                       vec_str(dims) + " (tensor " + x.type_str() + ")");
    seen.push_back(a);
    if (x.dim() > 0) n *= x.size(a);
  }
  if (dims.empty()) n = x.numel();
  return n;
}

// tril/triu: x where the last two dims' (j - i) passes `keep`, zero elsewhere.
template <class Keep>
Tensor triangle(const Tensor& x, const char* op, Keep keep) {
  operand(x, op);
  if (x.dim() < 2)
    throw_shape(op, "needs a tensor with at least 2 dimensions, got " + x.type_str());
  const Shape s{x.size(-2), x.size(-1)};
  Tensor diff = iota(DType::i64, s, 1) - iota(DType::i64, s, 0);  // j - i
  return where(keep(diff), x, zeros({}, x.dtype()));
}

}  // namespace

Tensor var(const Tensor& x, const std::vector<int64_t>& dims, double correction, bool keepdim) {
  operand(x, "var");
  require_floating(x, "var", "needs");
  const int64_t n = reduced_count(x, dims, "var");
  // f16 and bf16 are computed in f32 (as PyTorch's kernels accumulate) and rounded at the end.
  const bool half = x.dtype() == DType::f16 || x.dtype() == DType::bf16;
  Tensor y = half ? x.to(DType::f32) : x;
  Tensor c = y - mean(y, dims, /*keepdim=*/true);
  Tensor r = sum(c * c, dims, keepdim) / std::max(0.0, static_cast<double>(n) - correction);
  return half ? r.to(x.dtype()) : r;
}

Tensor std(const Tensor& x, const std::vector<int64_t>& dims, double correction, bool keepdim) {
  operand(x, "std");
  require_floating(x, "std", "needs");
  reduced_count(x, dims, "std");  // named in the errors as std
  return sqrt(var(x, dims, correction, keepdim));
}

Tensor linspace(double start, double end, int64_t steps, DType dtype) {
  if (steps < 0) throw ValueError("[linspace] steps must be >= 0, got " + str(steps));
  if (dtype == DType::boolean)
    throw DTypeError("[linspace] cannot make a bool tensor; use an integer or floating dtype");
  if (steps == 0) return zeros({0}, dtype);
  if (steps == 1) return full({1}, start, dtype);
  // As PyTorch's kernel: the first half counts up from start, the second down from end, so
  // both ends are exact.
  const double step = (end - start) / static_cast<double>(steps - 1);
  Tensor i = iota(DType::f64, Shape{steps}, 0);
  Tensor up = i * step + start;
  Tensor down = (static_cast<double>(steps - 1) - i) * (-step) + end;
  Tensor r = where(i < std::floor(static_cast<double>(steps) / 2), up, down);
  return r.to(dtype);
}

Tensor eye(int64_t n, int64_t m, DType dtype) {
  if (m < 0) m = n;
  if (n < 0) throw ValueError("[eye] n must be >= 0, got " + str(n));
  const Shape s{n, m};
  return eq(iota(DType::i64, s, 0), iota(DType::i64, s, 1)).to(dtype);
}

Tensor tril(const Tensor& x, int64_t diagonal) {
  return triangle(x, "tril", [diagonal](const Tensor& d) { return d <= diagonal; });
}

Tensor triu(const Tensor& x, int64_t diagonal) {
  return triangle(x, "triu", [diagonal](const Tensor& d) { return d >= diagonal; });
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  operand(indices, "one_hot");
  if (indices.dtype() != DType::i64 && indices.dtype() != DType::i32)
    throw DTypeError("[one_hot] indices must be an i64 (or i32) tensor, got " + indices.type_str() +
                     "; convert them with .to(DType::i64)");
  if (num_classes < -1)
    throw ValueError("[one_hot] num_classes must be -1 (inferred) or >= 0, got " +
                     str(num_classes));
  if (indices.is_pending()) {
    if (num_classes == -1) {
      throw ValueError("[one_hot] cannot infer num_classes from the pending tensor " +
                       indices.type_str() +
                       " without computing it; pass num_classes (the number of classes)");
    }
  } else {
    const Literal& v = indices.impl()->data();
    int64_t most = -1;
    for (int64_t i = 0; i < v.numel(); ++i) {
      const auto k = static_cast<int64_t>(v.at(i));
      if (k < 0)
        throw ValueError("[one_hot] class values must be non-negative, got " + str(k) + " in " +
                         indices.type_str());
      most = std::max(most, k);
    }
    if (num_classes == -1) num_classes = most + 1;
    if (most >= num_classes)
      throw ValueError("[one_hot] class value " + str(most) + " is not below num_classes " +
                       str(num_classes) + " (indices " + indices.type_str() + ")");
  }
  std::vector<int64_t> s = indices.sizes();
  s.push_back(num_classes);
  Tensor classes = iota(DType::i64, Shape(s), indices.dim());
  return eq(classes, indices.to(DType::i64).unsqueeze(-1)).to(DType::i64);
}

Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps) {
  operand(x, "layer_norm");
  require_floating(x, "layer_norm", "needs");
  const auto k = static_cast<int64_t>(normalized_shape.size());
  auto ctx = [&] {
    return "input " + x.type_str() + ", normalized_shape " + vec_str(normalized_shape);
  };
  bool fits = k >= 1 && k <= x.dim();
  for (int64_t i = 0; fits && i < k; ++i)
    fits = x.size(x.dim() - k + i) == normalized_shape[static_cast<size_t>(i)];
  if (!fits)
    throw_shape("layer_norm", "normalized_shape must be the input's last dimensions, got " + ctx());
  for (const Tensor* p : {&weight, &bias}) {
    if (p->defined() && p->sizes() != normalized_shape)
      throw_shape("layer_norm", std::string(p == &weight ? "weight" : "bias") + " " +
                                    p->type_str() + " must have normalized_shape, got " + ctx());
    if (p->defined() && p->dtype() != x.dtype()) {  // as PyTorch: no promotion
      throw DTypeError(std::string("[layer_norm] ") + (p == &weight ? "weight " : "bias ") +
                       p->type_str() + " must have the input's dtype, got " + ctx() +
                       "; convert it with .to(...)");
    }
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < k; ++i) dims.push_back(x.dim() - k + i);
  Tensor c = x - mean(x, dims, true);
  Tensor y = c * rsqrt(mean(c * c, dims, true) + eps);
  if (weight.defined()) y = y * weight;
  return bias.defined() ? y + bias : y;
}

Tensor dropout(const Tensor& x, double p, bool train) {
  operand(x, "dropout");
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("[dropout] p must be in [0, 1], got " + std::to_string(p));
  require_floating(x, "dropout", "needs");
  if (!train || p == 0.0) return x.clone();
  if (p == 1.0) return x * 0.0;
  Tensor keep = default_generator().uniform(x.sizes(), x.dtype()) >= p;
  return where(keep, x * (1.0 / (1.0 - p)), 0.0);
}

Tensor Tensor::var(const std::vector<int64_t>& dims, double correction, bool keepdim) const {
  return lazax::var(*this, dims, correction, keepdim);
}
Tensor Tensor::std(const std::vector<int64_t>& dims, double correction, bool keepdim) const {
  return lazax::std(*this, dims, correction, keepdim);
}
Tensor Tensor::tril(int64_t diagonal) const { return lazax::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return lazax::triu(*this, diagonal); }

}  // namespace lazax
