// Elementwise ops with NumPy/PyTorch broadcasting and type promotion, written with primitives.
#include <cmath>
#include <limits>

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
    if (da != db && da != 1 && db != 1) {
      throw ShapeError(std::string("[") + op + "] shapes " + a.str() + " and " + b.str() +
                       " cannot be broadcast together (dimension " + std::to_string(i) + ": " +
                       std::to_string(da) + " vs " + std::to_string(db) + ")");
    }
    out[i] = da == 1 ? db : da;
  }
  return Shape(out);
}

// Whether a and b have one dtype and shape already: nothing to promote or broadcast. (Undefined
// tensors take the general path, which reports them.)
bool same_type(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && a.impl()->type() == b.impl()->type();
}

// PyTorch's combination of a dtype with that of a lower-ranked operand (c10's
// combine_categories): the lower one decides only when its category is higher.
DType combine_categories(DType higher, DType lower) {
  if (is_floating(higher)) return higher;
  if (higher == DType::boolean || is_floating(lower)) return promote_types(higher, lower);
  return higher;
}

// Promotes and broadcasts a and b to one type and shape.
std::pair<Tensor, Tensor> align(const Tensor& a, const Tensor& b, const char* op,
                                std::optional<DType> force = std::nullopt) {
  if (same_type(a, b) && (!force || *force == a.dtype())) return {a, b};
  DType t = force ? *force : result_type(a, b);
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

// A host scalar next to a tensor. The C++ API takes scalars as `double`, and a double is a
// floating scalar, as a Python float is in PyTorch (whole or not: `x * 2.0` of an i32 tensor is
// f32 there too). A floating scalar is a "wrapped number": it ranks below every tensor, so it
// keeps a floating tensor's dtype (f16 * 2.5 is f16) and makes an integer or bool tensor the
// default float dtype, f32 (combine_categories with f32). To keep an integer dtype, multiply by
// a tensor of that dtype (e.g. scalar_tensor(2, DType::i32)).
Tensor weak_scalar(const Tensor& like, double v) {
  return host_scalar(v, is_floating(like.dtype()) ? like.dtype() : DType::f32);
}

// A new handle to a's value, for ops that change nothing (never `a` itself: an in-place op on the
// result must not write through to a).
Tensor same_value(const Tensor& a) { return reshape(a, a.sizes()); }

void require_floating(const Tensor& x, const char* op) {
  if (!is_floating(x.dtype()))
    throw DTypeError(std::string("[") + op + "] needs a floating tensor, got " + x.type_str() +
                     " (as PyTorch); convert it first, e.g. x.to(DType::f32)");
}
void reject_bool(const Tensor& x, const char* op) {
  if (x.dtype() == DType::boolean)
    throw DTypeError(std::string("[") + op + "] does not accept bool tensors, got " + x.type_str() +
                     " (as PyTorch); convert first, e.g. x.to(DType::i64)");
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

// combine_categories(like, i64): floating and integer tensors keep their dtype, bool becomes i64.
// The value is converted to that dtype here: i8, u8, i32 and u32 wrap (C++20 integer conversion is
// modular), and host_scalar takes a double.
Tensor integer_scalar(const Tensor& like, int64_t v) {
  const DType t = like.dtype() == DType::boolean ? DType::i64 : like.dtype();
  double value = static_cast<double>(v);
  if (t == DType::u8) value = static_cast<uint8_t>(v);
  if (t == DType::i8) value = static_cast<int8_t>(v);
  if (t == DType::i32) value = static_cast<int32_t>(v);
  if (t == DType::u32) value = static_cast<uint32_t>(v);
  return host_scalar(value, t);
}

DType result_type(const Tensor& a, const Tensor& b) {
  const bool a0 = a.dim() == 0, b0 = b.dim() == 0;
  if (a0 == b0) return promote_types(a.dtype(), b.dtype());
  return a0 ? combine_categories(b.dtype(), a.dtype()) : combine_categories(a.dtype(), b.dtype());
}

namespace {
// Two integer dtypes (NumPy's and PyTorch's lattice, over the dtypes lazax has): the same
// signedness gives the wider; mixed signedness gives the signed one when it is wider than the
// unsigned one, else the narrowest signed dtype wider than the unsigned one. So u8 + i32 = i32,
// u32 + i8/i32/i64 = i64 (as NumPy), and u8 + i8 = i32: NumPy and PyTorch give i16, which lazax
// lacks, and i32 is the narrowest dtype here that holds every value of both.
DType promote_integers(DType a, DType b) {
  const bool sa = is_signed_integer(a), sb = is_signed_integer(b);
  if (sa == sb) return dtype_size(a) >= dtype_size(b) ? a : b;
  const DType s = sa ? a : b, u = sa ? b : a;
  if (dtype_size(s) > dtype_size(u)) return s;
  return dtype_size(u) < 4 ? DType::i32 : DType::i64;
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
  return promote_integers(a, b);
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
Tensor sub(const Tensor& a, const Tensor& b) {
  if (a.defined() && b.defined() && (a.dtype() == DType::boolean || b.dtype() == DType::boolean))
    throw DTypeError("[sub] subtraction with a bool tensor is not supported (as PyTorch), got " +
                     a.type_str() + " and " + b.type_str() + "; use where() or convert first");
  return binary(OpCode::sub, a, b);
}
Tensor mul(const Tensor& a, const Tensor& b) { return binary(OpCode::mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  auto [x, y] = align(a, b, "div", is_floating(t) ? t : DType::f32);
  return record_op(OpCode::div, {&x, &y});
}
Tensor pow(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  if (t == DType::boolean)
    throw DTypeError("[pow] does not accept two bool tensors (as PyTorch), got " + a.type_str() +
                     " and " + b.type_str());
  if (is_floating(t)) {
    auto [x, y] = align(a, b, "pow", t);
    return record_op(OpCode::pow, {&x, &y});
  }
  // Integer powers stay integers (as PyTorch): computed in f64, exact while the result is below
  // 2^53, and wrapped to t through i64 as integer arithmetic wraps.
  auto [x, y] = align(a, b, "pow", DType::f64);
  Tensor power = record_op(OpCode::pow, {&x, &y});
  return power.to(DType::i64).to(t);
}
Tensor atan2(const Tensor& a, const Tensor& b) {
  DType t = promote_types(a.dtype(), b.dtype());
  auto [y, x] = align(a, b, "atan2", is_floating(t) ? t : DType::f32);
  return record_op(OpCode::atan2, {&y, &x});
}
Tensor pow(const Tensor& a, double e) {
  // A floating exponent makes an integer or bool base f32 (weak_scalar). PyTorch computes x^2 as
  // x * x, x^0.5 as sqrt(x) and x^-0.5 as rsqrt(x) (so pow(-0.0, 0.5) is -0.0 there, and
  // pow(-inf, -0.5) NaN), and so does this.
  Tensor x = is_floating(a.dtype()) ? a : a.to(DType::f32);
  if (e == 2.0) return x * x;
  if (e == 0.5) return sqrt(x);
  if (e == -0.5) return rsqrt(x);
  return pow(x, weak_scalar(x, e));
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
Tensor Tensor::operator-() const { return lazax::neg(*this); }

Tensor neg(const Tensor& a) { return unary(OpCode::neg, a); }
Tensor abs(const Tensor& a) { return unary(OpCode::abs, a); }
Tensor sign(const Tensor& a) {
  return a.defined() && a.dtype() == DType::boolean ? same_value(a) : unary(OpCode::sign, a);
}
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
Tensor floor(const Tensor& a) {
  reject_bool(a, "floor");
  return is_floating(a.dtype()) ? unary(OpCode::floor, a) : same_value(a);
}
// Half to even, as torch.round (the `round` primitive rounds half away from zero, as lax): where
// x is a tie (|r - x| = 0.5) and r = round(x) is odd, the even neighbour toward zero is
// sign(x) * (|r| - 1), which keeps the sign of a zero (round(-0.5) is -0.0). The arithmetic is
// exact: ties exist only below 2^(mantissa bits), where every integer is representable.
Tensor round(const Tensor& a) {
  reject_bool(a, "round");
  if (!is_floating(a.dtype())) return same_value(a);
  Tensor r = unary(OpCode::round, a);
  Tensor tie = eq(abs(r - a), host_scalar(0.5, a.dtype()));
  Tensor odd = ne(r - 2.0 * floor(r * 0.5), host_scalar(0.0, a.dtype()));
  return where(tie * odd, sign(a) * (abs(r) - 1.0), r);  // bool * bool: and
}
Tensor square(const Tensor& a) {
  Tensor x = a.defined() && a.dtype() == DType::boolean ? a.to(DType::i64) : a;  // PyTorch: i64
  return x * x;
}
// One clamp primitive, the missing bound at -inf or +inf (same values and gradients as the
// single-sided max or min: the gradient flows where x is within, ties included, as PyTorch).
Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi) {
  if (!lo && !hi)
    throw ValueError("[clamp] needs a min or a max (or both), got neither (tensor " + a.type_str() +
                     ")");
  const DType t = is_floating(a.dtype()) ? a.dtype() : DType::f32;
  Tensor x = a.dtype() == t ? a : a.to(t);
  const double inf = std::numeric_limits<double>::infinity();
  Tensor l = host_scalar(lo ? *lo : -inf, t);
  Tensor h = host_scalar(hi ? *hi : inf, t);
  return record_op(OpCode::clamp, {&l, &x, &h});
}

Tensor ceil(const Tensor& a) {
  reject_bool(a, "ceil");
  return is_floating(a.dtype()) ? unary(OpCode::ceil, a) : same_value(a);
}
Tensor erfinv(const Tensor& a) { return unary_float(OpCode::erf_inv, a); }
Tensor exp2(const Tensor& a) { return unary_float(OpCode::exp2, a); }
Tensor tan(const Tensor& a) { return unary_float(OpCode::tan, a); }
Tensor isfinite(const Tensor& a) {
  if (is_floating(a.dtype())) return unary(OpCode::is_finite, a);
  return eq(a, a);  // integers and bool: always true
}

namespace {
// The dtype two operands promote to, checked before anything is recorded.
DType checked_result_type(const Tensor& a, const Tensor& b, const char* op, bool allow_float,
                          bool allow_bool) {
  DType t = result_type(a, b);
  if ((!allow_float && is_floating(t)) || (!allow_bool && t == DType::boolean)) {
    const char* want = allow_float  ? "integer or floating"
                       : allow_bool ? "integer or bool"
                                    : "integer";
    throw DTypeError(std::string("[") + op + "] needs " + want + " tensors, got " + a.type_str() +
                     " and " + b.type_str() + " (as PyTorch); convert first, e.g. x.to(DType::" +
                     (allow_float ? "f32" : "i64") + ")");
  }
  return t;
}
Tensor binary_checked(OpCode code, const Tensor& a, const Tensor& b, const char* op,
                      bool allow_float, bool allow_bool) {
  checked_result_type(a, b, op, allow_float, allow_bool);
  auto [x, y] = align(a, b, op);
  return record_op(code, {&x, &y});
}
}  // namespace

Tensor fmod(const Tensor& a, const Tensor& b) {
  return binary_checked(OpCode::rem, a, b, "fmod", true, false);
}
// Python's modulo: r = fmod(a, b), then r + b where r is nonzero with a sign other than b's.
Tensor remainder(const Tensor& a, const Tensor& b) {
  checked_result_type(a, b, "remainder", true, false);
  auto [x, y] = align(a, b, "remainder");
  Tensor r = record_op(OpCode::rem, {&x, &y});
  Tensor zero = host_scalar(0.0, r.dtype());
  Tensor fix = bitwise_and(ne(r, zero), ne(lt(r, zero), lt(y, zero)));
  return where(fix, r + y, r);
}
Tensor bitwise_and(const Tensor& a, const Tensor& b) {
  return binary_checked(OpCode::and_, a, b, "bitwise_and", false, true);
}
Tensor bitwise_or(const Tensor& a, const Tensor& b) {
  return binary_checked(OpCode::or_, a, b, "bitwise_or", false, true);
}
Tensor bitwise_xor(const Tensor& a, const Tensor& b) {
  return binary_checked(OpCode::xor_, a, b, "bitwise_xor", false, true);
}
Tensor bitwise_not(const Tensor& a) {
  if (is_floating(a.dtype()))
    throw DTypeError("[bitwise_not] needs an integer or bool tensor, got " + a.type_str() +
                     " (as PyTorch); convert first, e.g. x.to(DType::i64)");
  return unary(OpCode::not_, a);
}
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) {
  return binary_checked(OpCode::shift_left, a, b, "bitwise_left_shift", false, false);
}
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) {
  DType t = checked_result_type(a, b, "bitwise_right_shift", false, false);
  return binary_checked(
      is_signed_integer(t) ? OpCode::shift_right_arithmetic : OpCode::shift_right_logical, a, b,
      "bitwise_right_shift", false, false);
}

Tensor eq(const Tensor& a, const Tensor& b) { return compare(CompareDir::eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare(CompareDir::ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare(CompareDir::lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return compare(CompareDir::le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare(CompareDir::gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare(CompareDir::ge, a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, double b) { return eq(a, weak_scalar(a, b)); }
Tensor operator!=(const Tensor& a, double b) { return ne(a, weak_scalar(a, b)); }
Tensor operator<(const Tensor& a, double b) { return lt(a, weak_scalar(a, b)); }
Tensor operator<=(const Tensor& a, double b) { return le(a, weak_scalar(a, b)); }
Tensor operator>(const Tensor& a, double b) { return gt(a, weak_scalar(a, b)); }
Tensor operator>=(const Tensor& a, double b) { return ge(a, weak_scalar(a, b)); }
Tensor operator==(double a, const Tensor& b) { return b == a; }
Tensor operator!=(double a, const Tensor& b) { return b != a; }
Tensor operator<(double a, const Tensor& b) { return b > a; }
Tensor operator<=(double a, const Tensor& b) { return b >= a; }
Tensor operator>(double a, const Tensor& b) { return b < a; }
Tensor operator>=(double a, const Tensor& b) { return b <= a; }

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

// The relu primitive (one node): as PyTorch, -0.0 and NaN are kept, the gradient is 0 at 0 and
// 1 at NaN (threshold_backward), the dtype is x's (integers too), and bool is refused.
Tensor relu(const Tensor& x) {
  reject_bool(x, "relu");
  return unary(OpCode::relu, x);
}
Tensor silu(const Tensor& x) {
  require_floating(x, "silu");
  return x * sigmoid(x);
}
Tensor gelu(const Tensor& x, bool tanh_approximation) {
  require_floating(x, "gelu");
  if (tanh_approximation) {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * (1.0 + erf(x * M_SQRT1_2));
}

}  // namespace lazax
