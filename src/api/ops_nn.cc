// Neural-network composites: softmax, log_softmax, logsumexp, cross_entropy, embedding.
// Each is a decomposition into primitives (the autodiff rules of those primitives give the
// gradients); numerically stable forms subtract the maximum before exponentiating.
#include <limits>
#include <string>

#include "lazax/api/autocast.h"
#include "lazax/api/tensor_impl.h"

namespace lazax {
namespace {

// softmax and friends need floating inputs, as PyTorch (which has no integer softmax kernels).
void require_floating(const Tensor& x, const char* op) {
  operand(x, op);
  if (!is_floating(x.dtype()))
    throw DTypeError(std::string("[") + op + "] needs a floating tensor, got " + x.type_str() +
                     "; convert it first, e.g. x.to(DType::f32)");
}

// x - max(x, dim): the largest entry along dim becomes 0, so exp cannot overflow. softmax,
// log_softmax and logsumexp do not depend on the shift, so its gradient is exactly zero: the max
// is taken of x detached (as JAX's stop_gradient), which spares the backward the max's VJP (a
// mask, a count and a division per call) and assume_pure two residuals.
// An empty dim has no max to take and nothing to shift.
Tensor shifted(const Tensor& x, int64_t dim) {
  if (x.dim() > 0 && x.size(dim) == 0) return x;
  return x - amax(x.detach(), {dim}, /*keepdim=*/true);
}

bool is_narrow(DType t) { return t == DType::bf16 || t == DType::f16; }

// softmax as primitives. bf16 and f16 inputs are computed in f32 and rounded once, at the end,
// as PyTorch's CPU kernels accumulate them in float.
Tensor softmax_value(const Tensor& x, int64_t dim) {
  const bool narrow = is_narrow(x.dtype());
  Tensor e = exp(shifted(narrow ? x.to(DType::f32) : x, dim));
  Tensor y = e / sum(e, {dim}, /*keepdim=*/true);
  return narrow ? y.to(x.dtype()) : y;
}

// The derivative of y = softmax(x) applied to a cotangent or a tangent d (its Jacobian,
// diag(y) - y y^T, is symmetric): y * (d - sum(d * y)), in f32 for bf16 and f16 as the forward.
Tensor softmax_derivative(const Tensor& y, const Tensor& d, int64_t dim) {
  const bool narrow = is_narrow(y.dtype());
  Tensor yw = narrow ? y.to(DType::f32) : y, dw = narrow ? d.to(DType::f32) : d;
  Tensor r = yw * (dw - sum(dw * yw, {dim}, /*keepdim=*/true));
  return narrow ? r.to(y.dtype()) : r;
}

}  // namespace

// On the tape softmax is one entry whose rules read its output alone, as PyTorch's softmax
// backward and JAX's custom_jvp softmax do: differentiating the primitives instead kept the
// exponentials and the row sums for the backward too, and took a pass more. (Traced functions,
// assume_pure's and scan's bodies, are differentiated as their primitives.)
Tensor softmax(const Tensor& x, int64_t dim) {
  require_floating(x, "softmax");
  norm_dim(dim, x.dim(), "softmax");
  if (!grad_enabled() || !x.requires_grad()) return softmax_value(x, dim);
  std::vector<Tensor> outs;
  {
    NoGrad off;
    outs.push_back(softmax_value(x, dim));
  }
  // Its own handle: an in-place op on the result rebinds the caller's, not this one.
  Tensor kept = outs[0].detach();
  // With grad mode on (create_graph, or forward mode under a transform), the rules recompute y
  // from the saved input, so that what they return is differentiable again.
  auto output = [kept, dim](std::span<const Tensor> in) {
    return grad_enabled() ? softmax(in[0], dim) : kept;
  };
  auto rule = [output, dim](const std::vector<Tensor>& d,
                            std::span<const Tensor> in) -> std::vector<Tensor> {
    if (d.empty() || !d[0].defined()) return {Tensor()};
    return {softmax_derivative(output(in), d[0], dim)};
  };
  return tape_hooks("softmax").attach_rules({x}, std::move(outs), rule, rule)[0];
}

Tensor log_softmax(const Tensor& x, int64_t dim) {
  require_floating(x, "log_softmax");
  norm_dim(dim, x.dim(), "log_softmax");
  Tensor s = shifted(x, dim);
  return s - log(sum(exp(s), {dim}, /*keepdim=*/true));
}

Tensor logsumexp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  operand(x, "logsumexp");
  for (int64_t d : dims) norm_dim(d, x.dim(), "logsumexp");  // before recording anything
  // As PyTorch 2: integer inputs give the default float dtype.
  Tensor y = is_floating(x.dtype()) ? x : x.to(DType::f32);
  if (y.numel() == 0) {
    // amax of an empty axis is an error; the sum of no exponentials is 0, so the result is -inf.
    Tensor s = sum(y, dims, keepdim);
    return s + (-std::numeric_limits<double>::infinity());
  }
  Tensor m = amax(y.detach(), dims, /*keepdim=*/true);  // the shift has zero gradient: see shifted
  // An infinite max (all -inf, or a +inf entry) would make x - m NaN; shift by 0 instead.
  Tensor finite = lt(abs(m), host_scalar(std::numeric_limits<double>::infinity(), m.dtype()));
  m = where(finite, m, 0.0);
  Tensor r = log(sum(exp(y - m), dims, /*keepdim=*/true)) + m;
  if (keepdim) return r;
  std::vector<int64_t> out;  // r's shape without the reduced (size-1) axes
  for (int64_t i = 0; i < y.dim(); ++i) {
    bool reduced = dims.empty();
    for (int64_t d : dims) reduced = reduced || norm_dim(d, y.dim(), "logsumexp") == i;
    if (!reduced) out.push_back(y.size(i));
  }
  return r.reshape(out);
}

Tensor cross_entropy(const Tensor& logits, const Tensor& targets) {
  require_floating(logits, "cross_entropy");
  operand(targets, "cross_entropy");
  auto ctx = [&] {
    return "logits " + logits.type_str() + ", targets " + targets.type_str();
  };  // text for errors only
  if (!is_integer(targets.dtype()))
    throw DTypeError("[cross_entropy] targets must hold integer class indices, got " + ctx() +
                     "; convert them with .to(DType::i64)");
  if (logits.dim() != 2 || targets.dim() != 1 || targets.size(0) != logits.size(0))
    throw ShapeError("[cross_entropy] expects logits [N, C] and targets [N], got " + ctx());
  const int64_t n = logits.size(0), c = logits.size(1);
  // Under Autocast, as PyTorch's (cross_entropy is on its fp32 list): bf16/f16 logits run in f32.
  const bool widen = autocast_dtype() != DType::f32 &&
                     (logits.dtype() == DType::bf16 || logits.dtype() == DType::f16);
  Tensor lsm = log_softmax(widen ? logits.to(DType::f32) : logits, 1);
  // One-hot pick of each row's target entry; `where` (not a product with the mask) keeps
  // -inf log-probabilities of other classes from turning into NaN.
  Tensor classes = record_op(OpCode::iota, {}, IotaAttrs{DType::i64, Shape{n, c}, 1});
  Tensor hot = eq(classes, targets.to(DType::i64).unsqueeze(1));
  Tensor picked = sum(where(hot, lsm, 0.0), {1});
  return 0.0 - mean(picked);  // not -mean: a zero loss is +0.0, as PyTorch's
}

Tensor embedding(const Tensor& weight, const Tensor& ids) {
  operand(weight, "embedding");
  operand(ids, "embedding");
  auto ctx = [&] {
    return "weight " + weight.type_str() + ", ids " + ids.type_str();
  };  // text for errors only
  if (weight.dim() != 2)
    throw ShapeError("[embedding] weight must be a matrix [num_embeddings, dim], got " + ctx());
  if (!is_integer(ids.dtype()))
    throw DTypeError("[embedding] ids must be integers, got " + ctx() +
                     "; convert them with .to(DType::i64)");
  // gather wants the index vector in a trailing dimension of size 1.
  std::vector<int64_t> index_shape = ids.sizes();
  index_shape.push_back(1);
  Tensor index = ids.reshape(index_shape);
  GatherAttrs a;
  a.offset_dims = {ids.dim()};
  a.collapsed_slice_dims = {0};
  a.start_index_map = {0};
  a.slice_sizes = {1, weight.size(1)};
  a.mode = GatherMode::fill;
  return record_op(OpCode::gather, {&weight, &index}, std::move(a));
}

}  // namespace lazax
