// Elementwise ops with NumPy/PyTorch broadcasting and type promotion, written with primitives.
#include <cmath>

#include "lazax/api/tensor_impl.h"

namespace lazax {
namespace {

int category(DType t) { return t == DType::boolean ? 0 : is_floating(t) ? 2 : 1; }

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t r = std::max(a.rank(), b.rank());
  Dims out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
    int64_t db = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError(std::string("[") + op + "] shapes " + a.str() + " and " + b.str() +
                       " cannot be broadcast together (dimension " + std::to_string(i) + ": " +
                       std::to_string(da) + " vs " + std::to_string(db) + ")");
    out[i] = da == 1 ? db : da;
  }
  return Shape(out);
}

// Whether a and b have one dtype and shape already: nothing to promote or broadcast. (Undefined
// tensors take the general path, which reports them.)
bool same_type(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && a.impl()->type() == b.impl()->type();
}

// Promotes and broadcasts a and b to one type and shape.
std::pair<Tensor, Tensor> align(const Tensor& a, const Tensor& b, const char* op,
                                std::optional<DType> force = std::nullopt) {
  if (same_type(a, b) && (!force || *force == a.dtype())) return {a, b};
  DType t = force ? *force : promote_types(a.dtype(), b.dtype());
  Shape s = broadcast_shapes(a.shape(), b.shape(), op);
  Tensor x = a.dtype() == t ? a : a.to(t);
  Tensor y = b.dtype() == t ? b : b.to(t);
  return {broadcast_to_shape(x, s, op), broadcast_to_shape(y, s, op)};
}

// As PyTorch, bool + bool is "or" and bool * bool is "and" (add/mul take no bool operands).
OpCode binary_op_for(OpCode op, DType t) {
  if (t != DType::boolean) return op;
  return op == OpCode::add ? OpCode::max : op == OpCode::mul ? OpCode::min : op;
}

Tensor binary(OpCode op, const Tensor& a, const Tensor& b) {
  // The common case records straight from the operands, without aligned copies of the handles.
  if (same_type(a, b)) return record_op(binary_op_for(op, a.dtype()), {&a, &b});
  auto [x, y] = align(a, b, op_name(op).data());
  return record_op(binary_op_for(op, x.dtype()), {&x, &y});
}

// A host scalar next to a tensor is "weak": it does not widen the tensor's dtype, except that a
// float scalar with an integer/bool tensor gives f32 (as PyTorch).
Tensor weak_scalar(const Tensor& like, double v) {
  DType t = like.dtype();
  if (!is_floating(t) && (v != std::floor(v) || !std::isfinite(v))) t = DType::f32;
  if (t == DType::boolean) t = DType::i64;
  return host_scalar(v, t);
}

Tensor unary(OpCode op, const Tensor& a) { return record_op(op, {&a}); }
Tensor unary_float(OpCode op, const Tensor& a) {
  Tensor x = is_floating(a.dtype()) ? a : a.to(DType::f32);
  return record_op(op, {&x});
}
Tensor compare(CompareDir dir, const Tensor& a, const Tensor& b) {
  auto [x, y] = align(a, b, "compare");
  return record_op(OpCode::compare, {&x, &y}, CompareAttrs{dir});
}

}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {
    if (a == DType::f64 || b == DType::f64) return DType::f64;
    if (a == DType::f32 || b == DType::f32) return DType::f32;
    return DType::f32;  // f16 with bf16
  }
  if (a == DType::i64 || b == DType::i64) return DType::i64;
  if (a == DType::i32 || b == DType::i32) return DType::i32;
  return DType::u8;
}

Tensor broadcast_to_shape(const Tensor& t, const Shape& shape, const char* op) {
  if (t.shape() == shape) return t;
  const Shape& s = t.shape();
  if (s.rank() > shape.rank())
    throw ShapeError(std::string("[") + op + "] cannot broadcast " + t.type_str() + " to " +
                     shape.str() + ": it has more dimensions");
  IntList dims;
  size_t off = shape.rank() - s.rank();
  for (size_t i = 0; i < s.rank(); ++i) {
    if (s[i] != 1 && s[i] != shape[i + off])
      throw ShapeError(std::string("[") + op + "] cannot broadcast " + t.type_str() + " to " +
                       shape.str());
    dims.push_back(static_cast<int64_t>(i + off));
  }
  return record_op(OpCode::broadcast_in_dim, {&t}, BroadcastInDimAttrs{shape, dims});
}

Tensor Tensor::to(DType t) const {
  if (dtype() == t) return *this;
  return record_op(OpCode::convert, {this}, ConvertAttrs{t});
}

Tensor add(const Tensor& a, const Tensor& b) { return binary(OpCode::add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(OpCode::sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(OpCode::mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) {
  DType t = promote_types(a.dtype(), b.dtype());
  auto [x, y] = align(a, b, "div", is_floating(t) ? t : DType::f32);
  return record_op(OpCode::div, {&x, &y});
}
Tensor pow(const Tensor& a, const Tensor& b) {
  DType t = promote_types(a.dtype(), b.dtype());
  auto [x, y] = align(a, b, "pow", is_floating(t) ? t : DType::f32);
  return record_op(OpCode::pow, {&x, &y});
}
Tensor atan2(const Tensor& a, const Tensor& b) {
  DType t = promote_types(a.dtype(), b.dtype());
  auto [y, x] = align(a, b, "atan2", is_floating(t) ? t : DType::f32);
  return record_op(OpCode::atan2, {&y, &x});
}
Tensor pow(const Tensor& a, double e) {
  if (e == 2.0) return a * a;
  if (e == 1.0) return a;
  if (e == 0.5) return sqrt(a);
  return pow(a, weak_scalar(a.to(is_floating(a.dtype()) ? a.dtype() : DType::f32), e));
}
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(OpCode::max, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(OpCode::min, a, b); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, double b) { return add(a, weak_scalar(a, b)); }
Tensor operator-(const Tensor& a, double b) { return sub(a, weak_scalar(a, b)); }
Tensor operator*(const Tensor& a, double b) { return mul(a, weak_scalar(a, b)); }
Tensor operator/(const Tensor& a, double b) { return div(a, weak_scalar(a, b)); }
Tensor operator+(double a, const Tensor& b) { return add(weak_scalar(b, a), b); }
Tensor operator-(double a, const Tensor& b) { return sub(weak_scalar(b, a), b); }
Tensor operator*(double a, const Tensor& b) { return mul(weak_scalar(b, a), b); }
Tensor operator/(double a, const Tensor& b) { return div(weak_scalar(b, a), b); }
Tensor Tensor::operator-() const { return neg(*this); }

Tensor neg(const Tensor& a) { return unary(OpCode::neg, a); }
Tensor abs(const Tensor& a) { return unary(OpCode::abs, a); }
Tensor sign(const Tensor& a) { return unary(OpCode::sign, a); }
Tensor exp(const Tensor& a) { return unary_float(OpCode::exp, a); }
Tensor log(const Tensor& a) { return unary_float(OpCode::log, a); }
Tensor log1p(const Tensor& a) { return unary_float(OpCode::log1p, a); }
Tensor expm1(const Tensor& a) { return unary_float(OpCode::expm1, a); }
Tensor tanh(const Tensor& a) { return unary_float(OpCode::tanh, a); }
Tensor sigmoid(const Tensor& a) { return unary_float(OpCode::logistic, a); }
Tensor sqrt(const Tensor& a) { return unary_float(OpCode::sqrt, a); }
Tensor rsqrt(const Tensor& a) { return unary_float(OpCode::rsqrt, a); }
Tensor sin(const Tensor& a) { return unary_float(OpCode::sin, a); }
Tensor cos(const Tensor& a) { return unary_float(OpCode::cos, a); }
Tensor erf(const Tensor& a) { return unary_float(OpCode::erf, a); }
Tensor floor(const Tensor& a) { return is_floating(a.dtype()) ? unary(OpCode::floor, a) : a; }
Tensor round(const Tensor& a) { return is_floating(a.dtype()) ? unary(OpCode::round, a) : a; }
Tensor square(const Tensor& a) { return a * a; }
Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi) {
  Tensor r = a;
  if (lo) r = maximum(r, weak_scalar(r, *lo));
  if (hi) r = minimum(r, weak_scalar(r, *hi));
  return r;
}

Tensor eq(const Tensor& a, const Tensor& b) { return compare(CompareDir::eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare(CompareDir::ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare(CompareDir::lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return compare(CompareDir::le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare(CompareDir::gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare(CompareDir::ge, a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator<(const Tensor& a, double b) { return lt(a, weak_scalar(a, b)); }
Tensor operator>(const Tensor& a, double b) { return gt(a, weak_scalar(a, b)); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (cond.dtype() != DType::boolean)
    throw DTypeError("[where] the condition must be bool, got " + cond.type_str() +
                     "; compare first (e.g. gt(x, 0))");
  auto [x, y] = align(a, b, "where");
  Shape s = broadcast_shapes(cond.shape(), x.shape(), "where");
  Tensor c = broadcast_to_shape(cond, s, "where");
  x = broadcast_to_shape(x, s, "where");
  y = broadcast_to_shape(y, s, "where");
  return record_op(OpCode::select, {&c, &x, &y});
}
Tensor where(const Tensor& cond, const Tensor& a, double b) {
  return where(cond, a, weak_scalar(a, b));
}

Tensor relu(const Tensor& x) { return maximum(x, weak_scalar(x, 0.0)); }
Tensor silu(const Tensor& x) { return x * sigmoid(x); }
Tensor gelu(const Tensor& x, bool tanh_approximation) {
  if (tanh_approximation) {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * (1.0 + erf(x * M_SQRT1_2));
}

}  // namespace lazax
