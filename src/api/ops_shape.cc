// Shape ops (PyTorch names and semantics) written with layout primitives, and matmul.
// Every op checks its arguments before recording anything, so a failed call leaves the graph and
// the tensors involved as they were. Ops that change nothing return a new handle to the same
// value (never `x` itself), so an in-place op on the result never writes through to `x`.
#include <algorithm>
#include <string>

#include "lazax/api/autocast.h"
#include "lazax/api/tensor_impl.h"

namespace lazax {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// A new handle to x's value: shape ops that change nothing still return a distinct tensor.
// A tensor on the autograd tape gets an identity reshape, so that gradients flow through it.
Tensor alias(const Tensor& x) {
  if (x.requires_grad() && grad_enabled())
    return record_op(OpCode::reshape, {&x}, ReshapeAttrs{x.shape()});
  return x.detach();
}

Tensor reshape_to(const Tensor& x, Shape s) {
  if (s == x.shape()) return alias(x);
  return record_op(OpCode::reshape, {&x}, ReshapeAttrs{std::move(s)});
}

// Normalizes a dim for ops that insert a dimension: d in [-(rank+1), rank].
int64_t norm_insert_dim(int64_t d, int64_t rank, const char* op) {
  return norm_dim(d, rank + 1, op);
}

Shape without_dim(const Shape& s, size_t d) {
  Shape r;
  for (size_t i = 0; i < s.rank(); ++i)
    if (i != d) r.dims().push_back(s[i]);
  return r;
}

}  // namespace

// ---- reshape family ----

Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape) {
  auto ctx = [&] {
    return "cannot reshape " + x.type_str() + " into shape " + vec_str(shape);
  };  // text for errors only
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer) throw_shape("reshape", ctx() + ": only one dimension can be -1");
      infer = i;
    } else if (shape[i] < 0) {
      throw_shape("reshape", ctx() + ": invalid size " + str(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  std::vector<int64_t> out = shape;
  const int64_t n = x.numel();
  if (infer) {
    if (known == 0 || n % known != 0) {
      throw_shape("reshape", ctx() + " (" + str(n) + " elements): the size for -1 " +
                                 (known == 0 ? std::string("is ambiguous with a size-0 dimension")
                                             : "would not be a whole number"));
    }
    out[*infer] = n / known;
  } else if (known != n) {
    throw_shape("reshape", ctx() + ": " + str(n) + " elements do not make " + str(known));
  }
  return reshape_to(x, Shape(out));
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  const Tensor& x = *this;
  const int64_t r = x.dim();
  int64_t s = norm_dim(start_dim, r, "flatten"), e = norm_dim(end_dim, r, "flatten");
  if (r == 0) return reshape_to(x, Shape{1});
  if (s > e)
    throw_shape("flatten", "start_dim " + str(start_dim) + " comes after end_dim " + str(end_dim) +
                               " for " + x.type_str());
  Shape out;
  int64_t merged = 1;
  for (int64_t i = 0; i < r; ++i) {
    const int64_t d = x.shape()[static_cast<size_t>(i)];
    if (i < s || i > e) {
      out.dims().push_back(d);
    } else {
      merged *= d;
      if (i == e) out.dims().push_back(merged);
    }
  }
  return reshape_to(x, out);
}

Tensor unsqueeze(const Tensor& x, int64_t d) {
  const auto at = static_cast<size_t>(norm_insert_dim(d, x.dim(), "unsqueeze"));
  Shape s;
  for (size_t i = 0; i <= x.shape().rank(); ++i) {
    if (i == at) s.dims().push_back(1);
    if (i < x.shape().rank()) s.dims().push_back(x.shape()[i]);
  }
  return reshape_to(x, s);
}

Tensor squeeze(const Tensor& x, int64_t d) {
  const auto at = static_cast<size_t>(norm_dim(d, x.dim(), "squeeze"));
  if (x.dim() == 0 || x.shape()[at] != 1) return alias(x);  // as PyTorch: a no-op
  return reshape_to(x, without_dim(x.shape(), at));
}

// ---- transposes ----

Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
  const int64_t r = x.dim();
  if (static_cast<int64_t>(dims.size()) != r)
    throw_shape("permute", "dims " + vec_str(dims) + " must list each of the " + str(r) +
                               " dimensions of " + x.type_str() + " once");
  IntList perm;
  bool identity = true;
  for (int64_t d : dims) {
    int64_t n = norm_dim(d, r, "permute");
    if (std::find(perm.begin(), perm.end(), n) != perm.end())
      throw_shape("permute",
                  "dims " + vec_str(dims) + " repeat dimension " + str(n) + " of " + x.type_str());
    identity = identity && n == static_cast<int64_t>(perm.size());
    perm.push_back(n);
  }
  if (identity) return alias(x);
  return record_op(OpCode::transpose, {&x}, TransposeAttrs{perm});
}

Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) {
  const int64_t r = x.dim();
  int64_t a = norm_dim(d0, r, "transpose"), b = norm_dim(d1, r, "transpose");
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) perm[static_cast<size_t>(i)] = i;
  if (r > 0) std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
  return permute(x, perm);
}

// ---- broadcasting ----

Tensor expand(const Tensor& x, const std::vector<int64_t>& shape) {
  const Shape& s = x.shape();
  auto ctx = [&] {
    return "cannot expand " + x.type_str() + " to " + vec_str(shape);
  };  // text for errors only
  if (shape.size() < s.rank())
    throw_shape("expand", ctx() + ": the target has fewer dimensions than the tensor");
  const size_t off = shape.size() - s.rank();
  Shape out(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && i >= off) {
      out[i] = s[i - off];
      continue;
    }
    if (shape[i] < 0) {
      throw_shape("expand", ctx() + ": size " + str(shape[i]) + " in dimension " +
                                str(static_cast<int64_t>(i)) +
                                (shape[i] == -1 ? " (-1 only keeps an existing dimension)" : ""));
    }
    if (i >= off && s[i - off] != 1 && s[i - off] != shape[i])
      throw_shape("expand", ctx() + ": dimension " + str(static_cast<int64_t>(i)) + " has size " +
                                str(s[i - off]) + ", which must be 1 or " + str(shape[i]));
  }
  if (out == s) return alias(x);
  return broadcast_to_shape(x, out, "expand");
}

Tensor broadcast_to(const Tensor& x, const std::vector<int64_t>& shape) { return expand(x, shape); }

// ---- slicing ----

Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (step <= 0)
    throw ValueError("[slice] step must be positive, got " + str(step) + " (tensor " +
                     x.type_str() + ")");
  const int64_t r = x.dim();
  if (r == 0) throw_shape("slice", "cannot slice a 0-d tensor " + x.type_str());
  const auto d = static_cast<size_t>(norm_dim(dim, r, "slice"));
  const int64_t n = x.shape()[d];
  auto wrap = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  int64_t lo = wrap(start), hi = std::max(wrap(end), lo);
  if (lo == 0 && hi == n && step == 1) return alias(x);
  SliceAttrs a;
  for (size_t i = 0; i < x.shape().rank(); ++i) {
    a.start_indices.push_back(i == d ? lo : 0);
    a.limit_indices.push_back(i == d ? hi : x.shape()[i]);
    a.strides.push_back(i == d ? step : 1);
  }
  return record_op(OpCode::slice, {&x}, std::move(a));
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  const int64_t r = x.dim();
  if (r == 0) throw_shape("narrow", "cannot narrow a 0-d tensor " + x.type_str());
  const int64_t d = norm_dim(dim, r, "narrow");
  const int64_t n = x.shape()[static_cast<size_t>(d)];
  const int64_t s = start < 0 ? start + n : start;
  if (s < 0 || s > n)
    throw ValueError("[narrow] start " + str(start) + " is out of range for dimension " + str(d) +
                     " of " + x.type_str() + " (size " + str(n) + ")");
  if (length < 0 || s + length > n) {
    throw ValueError("[narrow] start " + str(start) + " + length " + str(length) +
                     " does not fit dimension " + str(d) + " of " + x.type_str() + " (size " +
                     str(n) + ")");
  }
  return slice(x, d, s, s + length, 1);
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  const int64_t r = x.dim();
  if (r == 0) throw_shape("select", "cannot select from a 0-d tensor " + x.type_str());
  const int64_t d = norm_dim(dim, r, "select");
  const int64_t n = x.shape()[static_cast<size_t>(d)];
  if (index < -n || index >= n)
    throw ValueError("[select] index " + str(index) + " is out of range for dimension " + str(d) +
                     " with size " + str(n) + " (tensor " + x.type_str() + ")");
  const int64_t i = index < 0 ? index + n : index;
  Tensor s = slice(x, d, i, i + 1, 1);
  return reshape_to(s, without_dim(x.shape(), static_cast<size_t>(d)));
}

// ---- joining ----

Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
  if (xs.empty()) throw ValueError("[cat] needs at least one tensor, got an empty list");
  std::string types;
  for (const Tensor& t : xs) {
    operand(t, "cat");
    types += (types.empty() ? "" : ", ") + t.type_str();
  }
  const Tensor& first = xs.front();
  if (first.dim() == 0)
    throw_shape("cat", "0-d tensors cannot be concatenated (got " + types + "); use stack");
  const int64_t r = first.dim();
  const auto d = static_cast<size_t>(norm_dim(dim, r, "cat"));
  DType t = first.dtype();
  for (const Tensor& x : xs) {
    bool fits = x.dim() == r;
    for (size_t i = 0; fits && i < static_cast<size_t>(r); ++i)
      fits = i == d || x.shape()[i] == first.shape()[i];
    if (!fits)
      throw_shape("cat", "tensors must have the same shape except in dimension " +
                             str(static_cast<int64_t>(d)) + ", got " + types);
    t = promote_types(t, x.dtype());
  }
  if (xs.size() == 1) return alias(first);
  std::vector<Tensor> ins;
  ins.reserve(xs.size());
  for (const Tensor& x : xs) ins.push_back(x.to(t));
  return record_op(OpCode::concatenate, ins, ConcatenateAttrs{static_cast<int64_t>(d)})[0];
}

Tensor stack(const std::vector<Tensor>& xs, int64_t dim) {
  if (xs.empty()) throw ValueError("[stack] needs at least one tensor, got an empty list");
  std::string types;
  for (const Tensor& t : xs) {
    operand(t, "stack");
    types += (types.empty() ? "" : ", ") + t.type_str();
  }
  for (const Tensor& x : xs)
    if (x.shape() != xs.front().shape())
      throw_shape("stack", "tensors must all have the same shape, got " + types);
  const int64_t d = norm_insert_dim(dim, xs.front().dim(), "stack");
  std::vector<Tensor> parts;
  parts.reserve(xs.size());
  for (const Tensor& x : xs) parts.push_back(unsqueeze(x, d));
  return cat(parts, d);
}

// ---- matmul ----

namespace {
// The NumPy broadcast of the batch dims (all but the last two) of matmul operand shapes.
template <class Ctx>
std::vector<int64_t> matmul_batch(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys,
                                  const Ctx& ctx) {
  const size_t nx = xs.size() - 2, ny = ys.size() - 2, nb = std::max(nx, ny);
  std::vector<int64_t> batch(nb, 1);
  for (size_t i = 0; i < nb; ++i) {
    int64_t dx = i + nx >= nb ? xs[i + nx - nb] : 1, dy = i + ny >= nb ? ys[i + ny - nb] : 1;
    if (dx != dy && dx != 1 && dy != 1)
      throw_shape("matmul", "batch dimensions of " + ctx() + " cannot be broadcast together (" +
                                str(dx) + " vs " + str(dy) + ")");
    batch[i] = dx == 1 ? dy : dx;
  }
  return batch;
}
}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  operand(a, "matmul");
  operand(b, "matmul");
  auto ctx = [&] { return a.type_str() + " and " + b.type_str(); };  // text for errors only
  if (a.dim() == 0 || b.dim() == 0)
    throw_shape("matmul", "both operands need at least one dimension, got " + ctx() +
                              "; use mul for scalars");
  // Under Autocast(bf16), as PyTorch's autocast (matmul is on its lower-precision list): f32
  // operands, or one f32 and one of the autocast dtype, multiply in that dtype (oneDNN: f32
  // accumulation) and the result stays in it; ops after it promote (bf16 + f32 is f32).
  if (const DType c = autocast_dtype(); c != DType::f32) {
    const bool f32_a = a.dtype() == DType::f32, f32_b = b.dtype() == DType::f32;
    if ((f32_a || f32_b) && (f32_a || a.dtype() == c) && (f32_b || b.dtype() == c))
      return matmul(f32_a ? a.to(c) : a, f32_b ? b.to(c) : b);
  }
  // As PyTorch ("expected m1 and m2 to have the same dtype"): no promotion between operands.
  if (a.dtype() != b.dtype()) {
    throw DTypeError("[matmul] expects operands of the same dtype, got " + ctx() +
                     "; convert one with .to(...), e.g. b.to(DType::" +
                     std::string(dtype_name(a.dtype())) + ")");
  }
  const DType t = a.dtype();
  if (t == DType::boolean)
    throw DTypeError("[matmul] does not accept bool operands, got " + ctx() + "; convert first");
  // 1-D operands act as matrices [1, k] and [k, 1]; that extra dim is removed from the result.
  std::vector<int64_t> xs = a.sizes(), ys = b.sizes();
  if (a.dim() == 1) xs.insert(xs.begin(), 1);
  if (b.dim() == 1) ys.push_back(1);
  const int64_t k = xs.back();
  if (k != ys[ys.size() - 2])
    throw_shape("matmul", "cannot multiply " + ctx() + ": contracting sizes differ (" + str(k) +
                              " vs " + str(ys[ys.size() - 2]) + ")");
  // [..., n, k] x [k, m] needs no batch dims; otherwise both sides get the broadcast batch.
  const bool batched = ys.size() > 2;
  const std::vector<int64_t> batch = batched ? matmul_batch(xs, ys, ctx) : std::vector<int64_t>{};

  Tensor x = a, y = b;  // every check is done: record from here on
  if (a.dim() == 1 && b.dim() == 1)
    return record_op(OpCode::dot_general, {&x, &y}, DotGeneralAttrs{{}, {}, {0}, {0}});
  if (a.dim() == 1) x = unsqueeze(x, 0);
  if (b.dim() == 1) y = unsqueeze(y, 1);
  Tensor out;
  if (!batched) {
    const auto rx = static_cast<int64_t>(xs.size());
    out = record_op(OpCode::dot_general, {&x, &y}, DotGeneralAttrs{{}, {}, {rx - 1}, {0}});
  } else {
    auto with = [&batch](int64_t p, int64_t q) {
      std::vector<int64_t> s = batch;
      s.push_back(p);
      s.push_back(q);
      return Shape(s);
    };
    x = broadcast_to_shape(x, with(xs[xs.size() - 2], k), "matmul");
    y = broadcast_to_shape(y, with(k, ys.back()), "matmul");
    const auto nb = static_cast<int64_t>(batch.size());
    IntList bd;
    for (int64_t i = 0; i < nb; ++i) bd.push_back(i);
    out = record_op(OpCode::dot_general, {&x, &y}, DotGeneralAttrs{bd, bd, {nb + 1}, {nb}});
  }
  if (a.dim() == 1) out = squeeze(out, -2);
  if (b.dim() == 1) out = squeeze(out, -1);
  return out;
}

Tensor tril_mask(int64_t n, int64_t m) {
  if (n < 0 || m < 0)
    throw ValueError("[tril_mask] sizes must be >= 0, got " + str(n) + " x " + str(m));
  Tensor i = record_op(OpCode::iota, {}, IotaAttrs{DType::i64, Shape{n, m}, 0});
  Tensor j = record_op(OpCode::iota, {}, IotaAttrs{DType::i64, Shape{n, m}, 1});
  return le(j, i);
}

// ---- methods ----

Tensor Tensor::reshape(const std::vector<int64_t>& s) const { return lazax::reshape(*this, s); }
Tensor Tensor::transpose(int64_t d0, int64_t d1) const { return lazax::transpose(*this, d0, d1); }
Tensor Tensor::t() const {
  if (dim() > 2)
    throw_shape("t", "expects a tensor with at most 2 dimensions, got " + type_str() +
                         "; use transpose(d0, d1) or permute");
  return dim() < 2 ? alias(*this) : lazax::transpose(*this, 0, 1);
}
Tensor Tensor::permute(const std::vector<int64_t>& d) const { return lazax::permute(*this, d); }
Tensor Tensor::unsqueeze(int64_t d) const { return lazax::unsqueeze(*this, d); }
Tensor Tensor::squeeze(int64_t d) const { return lazax::squeeze(*this, d); }
Tensor Tensor::expand(const std::vector<int64_t>& s) const { return lazax::expand(*this, s); }
Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end, int64_t step) const {
  return lazax::slice(*this, dim, start, end, step);
}
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return lazax::narrow(*this, dim, start, length);
}
Tensor Tensor::select(int64_t dim, int64_t index) const { return lazax::select(*this, dim, index); }

}  // namespace lazax
