// Reference kernels of the elementwise ops, constant and iota. f16/bf16 compute in float and
// round on store; integer arithmetic wraps (two's complement, never C++ UB); bool computes as
// 0/1 and stores x != 0. Semantics follow jax.lax.
#include <cmath>
#include <limits>

#include "common.h"
#include "kernels.h"
#include "lazax/interp/scalar_math.h"

namespace lazax::interp {
namespace {

void check_elementwise(const Node& node, std::span<const Literal> in, size_t arity) {
  require(in.size() == arity, node,
          [&] { return "expects " + std::to_string(arity) + " operands"; });
  for (const auto& x : in) {
    require(x.numel() == node.outputs.at(0).numel(), node, [&] {
      return "operand " + x.type.str() + " does not match result " + node.outputs[0].str();
    });
  }
}

// out[i] = fn(load(x[i])), computed in compute_t and stored to the (same) dtype.
template <class Fn>
std::vector<Literal> unary(const Node& node, std::span<const Literal> in, Fn fn) {
  check_elementwise(node, in, 1);
  Literal out = output(node);
  require(out.dtype() == in[0].dtype(), node, "result dtype differs from the operand's");
  dispatch_dtype(in[0].dtype(), [&]<class T>() {
    const T* x = in[0].data<T>();
    T* y = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i)
      y[i] = store<T>(fn.template operator()<T>(load(x[i])));
  });
  return {out};
}

template <class Fn>
std::vector<Literal> binary(const Node& node, std::span<const Literal> in, Fn fn) {
  check_elementwise(node, in, 2);
  Literal out = output(node);
  require(out.dtype() == in[0].dtype() && in[1].dtype() == in[0].dtype(), node,
          "operand and result dtypes differ");
  dispatch_dtype(in[0].dtype(), [&]<class T>() {
    const T* a = in[0].data<T>();
    const T* b = in[1].data<T>();
    T* y = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i)
      y[i] = store<T>(fn.template operator()<T>(load(a[i]), load(b[i])));
  });
  return {out};
}

[[noreturn]] void float_only(const Node& node, DType t) {
  throw DTypeError("[interpret] " + std::string(op_name(node.op)) +
                   " needs a floating-point operand, got " + std::string(dtype_name(t)));
}

// A unary op defined only on floating types: fn(c) with c float or double.
template <class Fn>
std::vector<Literal> unary_float(const Node& node, std::span<const Literal> in, Fn fn) {
  return unary(node, in, [&]<class T>(compute_t<T> c) -> compute_t<T> {
    if constexpr (kIsFloat<T>)
      return fn(c);
    else
      float_only(node, dtype_of<T>());
  });
}

// Integer division truncating toward zero, as C++. Division by zero is defined here as 0 (XLA
// leaves it implementation-defined; C++ would trap); INT_MIN / -1 wraps to INT_MIN.
template <class C>
C int_div(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>)
    if (a == std::numeric_limits<C>::min() && b == -1) return a;
  return static_cast<C>(a / b);
}

}  // namespace

std::vector<Literal> kernel_constant(const Node& node, std::span<const Literal>) {
  const Literal& v = node.attr<ConstantAttrs>().value;
  require(v.type == node.outputs.at(0), node,
          "value " + v.type.str() + " does not match result " + node.outputs[0].str());
  return {v};  // literals are immutable: sharing the buffer is safe
}

std::vector<Literal> kernel_iota(const Node& node, std::span<const Literal>) {
  const auto& a = node.attr<IotaAttrs>();
  Literal out = output(node);
  require(a.dimension >= 0 && static_cast<size_t>(a.dimension) < out.shape().rank(), node,
          "dimension out of range");
  dispatch_dtype(out.dtype(), [&]<class T>() {
    T* y = out.data<T>();
    for_each_index(out.shape(), [&](const Dims& idx, int64_t i) {
      y[i] = convert_value<T>(idx[static_cast<size_t>(a.dimension)]);
    });
  });
  return {out};
}

std::vector<Literal> kernel_add(const Node& node, std::span<const Literal> in) {
  return binary(node, in, []<class T>(compute_t<T> a, compute_t<T> b) { return wrap_add(a, b); });
}
std::vector<Literal> kernel_sub(const Node& node, std::span<const Literal> in) {
  return binary(node, in, []<class T>(compute_t<T> a, compute_t<T> b) { return wrap_sub(a, b); });
}
std::vector<Literal> kernel_mul(const Node& node, std::span<const Literal> in) {
  return binary(node, in, []<class T>(compute_t<T> a, compute_t<T> b) { return wrap_mul(a, b); });
}
std::vector<Literal> kernel_div(const Node& node, std::span<const Literal> in) {
  return binary(node, in, []<class T>(compute_t<T> a, compute_t<T> b) -> compute_t<T> {
    if constexpr (kIsFloat<T>)
      return a / b;
    else
      return int_div(a, b);
  });
}

std::vector<Literal> kernel_neg(const Node& node, std::span<const Literal> in) {
  return unary(node, in, []<class T>(compute_t<T> a) { return wrap_neg(a); });
}
std::vector<Literal> kernel_abs(const Node& node, std::span<const Literal> in) {
  return unary(node, in, []<class T>(compute_t<T> a) -> compute_t<T> {
    if constexpr (kIsFloat<T>)
      return std::fabs(a);
    else if constexpr (std::is_signed_v<compute_t<T>>)
      return a < 0 ? wrap_neg(a) : a;  // abs(MIN) = MIN
    else
      return a;
  });
}
// relu: 0 below zero, x elsewhere, as PyTorch: NaN and -0.0 are kept, -inf gives +0.
std::vector<Literal> kernel_relu(const Node& node, std::span<const Literal> in) {
  return unary(node, in, []<class T>(compute_t<T> a) -> compute_t<T> {
    using C = compute_t<T>;
    if constexpr (std::is_unsigned_v<C>)
      return a;
    else
      return a < C{0} ? C{0} : a;
  });
}
// sign: -1, 0 or 1; floats keep NaN and the sign of zero (sign(-0.0) = -0.0).
std::vector<Literal> kernel_sign(const Node& node, std::span<const Literal> in) {
  return unary(node, in, []<class T>(compute_t<T> a) -> compute_t<T> {
    using C = compute_t<T>;
    if constexpr (kIsFloat<T>) {
      if (std::isnan(a) || a == 0) return a;
      return std::copysign(C{1}, a);
    } else if constexpr (std::is_unsigned_v<C>) {
      return a > 0 ? C{1} : C{0};
    } else {
      return a > 0 ? C{1} : (a < 0 ? wrap_neg(C{1}) : C{0});
    }
  });
}

std::vector<Literal> kernel_exp(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::exp(a); });
}
std::vector<Literal> kernel_log(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::log(a); });
}
std::vector<Literal> kernel_log1p(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::log1p(a); });
}
std::vector<Literal> kernel_expm1(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::expm1(a); });
}
std::vector<Literal> kernel_tanh(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::tanh(a); });
}
// 1 / (1 + exp(-x)), written so that exp never overflows.
std::vector<Literal> kernel_logistic(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) -> decltype(a) {
    using C = decltype(a);
    if (a >= 0) return C{1} / (C{1} + std::exp(-a));
    C e = std::exp(a);  // NaN lands here and stays NaN
    return e / (C{1} + e);
  });
}
std::vector<Literal> kernel_sqrt(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::sqrt(a); });
}
std::vector<Literal> kernel_rsqrt(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return decltype(a){1} / std::sqrt(a); });
}
std::vector<Literal> kernel_sin(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::sin(a); });
}
std::vector<Literal> kernel_cos(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::cos(a); });
}
std::vector<Literal> kernel_erf(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::erf(a); });
}
std::vector<Literal> kernel_floor(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::floor(a); });
}
// lax.round's default rounding_method is AWAY_FROM_ZERO: std::round.
std::vector<Literal> kernel_round(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::round(a); });
}

// rem: the remainder of truncating division, C's fmod (lax.rem): the sign of x, |r| < |y|.
// Integers: x - div(x, y) * y, so x % 0 = x and MIN % -1 = 0 (never C++ UB); floats: fmod,
// x % 0 = NaN, x % inf = x.
std::vector<Literal> kernel_rem(const Node& node, std::span<const Literal> in) {
  return binary(node, in, []<class T>(compute_t<T> a, compute_t<T> b) -> compute_t<T> {
    if constexpr (kIsFloat<T>)
      return std::fmod(a, b);
    else
      return wrap_sub(a, wrap_mul(int_div(a, b), b));
  });
}
std::vector<Literal> kernel_ceil(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::ceil(a); });
}
std::vector<Literal> kernel_exp2(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::exp2(a); });
}
std::vector<Literal> kernel_tan(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) { return std::tan(a); });
}

// erf^-1(y) in double: Giles' approximation ("Approximating the erfinv function", 2010) as the
// start, then Newton steps on erfc(x) = 1 - y (1 - y is exact for y in [0.5, 1], and erfc keeps
// its relative precision in the tail, where erf would lose it). Odd; +-1 give +-inf, |y| > 1
// and NaN give NaN, +-0 keep their sign.
double erf_inv_double(double y) {
  if (std::isnan(y) || std::fabs(y) > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 0) return y;
  const double a = std::fabs(y);
  if (a == 1) return std::copysign(std::numeric_limits<double>::infinity(), y);
  double w = -std::log((1 - a) * (1 + a)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
  }
  double x = p * a;
  const double two_over_sqrt_pi = 1.1283791670955126;
  // Newton converges quadratically once close; far in the tail the start is rougher.
  for (int i = 0; i < 50; ++i) {
    // f(x) = erf(x) - a, written as (1 - a) - erfc(x) where that is more precise.
    double f = a < 0.5 ? std::erf(x) - a : (1 - a) - std::erfc(x);
    double d = two_over_sqrt_pi * std::exp(-x * x);
    if (d == 0) break;
    double step = f / d;
    x -= step;
    if (std::fabs(step) <= 1e-17 * x) break;
  }
  return std::copysign(x, y);
}

std::vector<Literal> kernel_erf_inv(const Node& node, std::span<const Literal> in) {
  return unary_float(node, in, [](auto a) {
    return static_cast<decltype(a)>(erf_inv_double(static_cast<double>(a)));
  });
}

// is_finite: true unless NaN or +-inf.
std::vector<Literal> kernel_is_finite(const Node& node, std::span<const Literal> in) {
  check_elementwise(node, in, 1);
  Literal out = output(node);
  require(out.dtype() == DType::boolean, node, "result must be bool");
  bool* y = out.data<bool>();
  dispatch_dtype(in[0].dtype(), [&]<class T>() {
    const T* x = in[0].data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      if constexpr (kIsFloat<T>)
        y[i] = std::isfinite(load(x[i]));
      else
        float_only(node, dtype_of<T>());
    }
  });
  return {out};
}

// clamp(min, x, max) = min(max(x, min), max) with the NaN-propagating max and min below (as
// lax: a NaN operand gives NaN; min > max gives max). min and max may be scalars.
std::vector<Literal> kernel_clamp(const Node& node, std::span<const Literal> in) {
  require(in.size() == 3, node, "expects 3 operands");
  Literal out = output(node);
  for (size_t k = 0; k < 3; ++k) {
    require(in[k].dtype() == out.dtype(), node, "operand and result dtypes differ");
    require(in[k].numel() == out.numel() || (k != 1 && in[k].shape().rank() == 0), node,
            [&] { return "operand " + in[k].type.str() + " does not match result"; });
  }
  const int64_t lo_step = in[0].shape().rank() == 0 ? 0 : 1;
  const int64_t hi_step = in[2].shape().rank() == 0 ? 0 : 1;
  dispatch_dtype(out.dtype(), [&]<class T>() {
    using C = compute_t<T>;
    auto pick = [](C a, C b, bool larger) -> C {
      if constexpr (kIsFloat<T>) {
        if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
        if (a == b) return std::signbit(a) == larger ? b : a;
      }
      return (larger ? a > b : a < b) ? a : b;
    };
    const T* lo = in[0].data<T>();
    const T* x = in[1].data<T>();
    const T* hi = in[2].data<T>();
    T* y = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      C v = pick(load(x[i]), load(lo[i * lo_step]), true);
      y[i] = store<T>(pick(v, load(hi[i * hi_step]), false));
    }
  });
  return {out};
}

namespace {
[[noreturn]] void int_only(const Node& node, DType t, bool bool_ok) {
  throw DTypeError("[interpret] " + std::string(op_name(node.op)) + " needs an integer" +
                   (bool_ok ? " or bool" : "") + " operand, got " + std::string(dtype_name(t)));
}
// A bitwise op on integers (in their unsigned bits) and bool (as 0/1).
template <class Fn>
std::vector<Literal> bitwise(const Node& node, std::span<const Literal> in, Fn fn) {
  return binary(node, in, [&]<class T>(compute_t<T> a, compute_t<T> b) -> compute_t<T> {
    if constexpr (kIsFloat<T>) {
      int_only(node, dtype_of<T>(), true);
    } else {
      using U = std::make_unsigned_t<compute_t<T>>;
      return static_cast<compute_t<T>>(fn(static_cast<U>(a), static_cast<U>(b)));
    }
  });
}
// A shift of x by y bits (integers only); `out_of_range(x)` is the result when y < 0 or y >= the
// bit width (as lax: the amount is read as unsigned).
template <class Fn, class OutOfRange>
std::vector<Literal> shift(const Node& node, std::span<const Literal> in, Fn fn,
                           OutOfRange out_of_range) {
  return binary(node, in, [&]<class T>(compute_t<T> a, compute_t<T> b) -> compute_t<T> {
    if constexpr (!kIsInt<T>) {
      int_only(node, dtype_of<T>(), false);
    } else {
      using U = std::make_unsigned_t<T>;
      using S = std::make_signed_t<T>;
      constexpr int bits = std::numeric_limits<U>::digits;
      const U ua = static_cast<U>(a);
      if (static_cast<U>(b) >= static_cast<U>(bits))  // negative: read as unsigned, too big
        return static_cast<T>(out_of_range(static_cast<S>(ua)));
      return static_cast<T>(fn(ua, static_cast<S>(ua), static_cast<int>(b)));
    }
  });
}
}  // namespace

std::vector<Literal> kernel_and_(const Node& node, std::span<const Literal> in) {
  return bitwise(node, in, [](auto a, auto b) { return a & b; });
}
std::vector<Literal> kernel_or_(const Node& node, std::span<const Literal> in) {
  return bitwise(node, in, [](auto a, auto b) { return a | b; });
}
std::vector<Literal> kernel_xor_(const Node& node, std::span<const Literal> in) {
  return bitwise(node, in, [](auto a, auto b) { return a ^ b; });
}
// not: ~x on integers, !x on bool.
std::vector<Literal> kernel_not_(const Node& node, std::span<const Literal> in) {
  return unary(node, in, [&]<class T>(compute_t<T> a) -> compute_t<T> {
    if constexpr (kIsFloat<T>)
      int_only(node, dtype_of<T>(), true);
    else if constexpr (std::is_same_v<T, bool>)
      return a == 0 ? 1 : 0;
    else
      return static_cast<compute_t<T>>(~static_cast<std::make_unsigned_t<compute_t<T>>>(a));
  });
}
// shift_left: 0 when the amount is out of range; bits shifted out are dropped (unsigned and
// signed alike: the shift is done on the unsigned bits).
std::vector<Literal> kernel_shift_left(const Node& node, std::span<const Literal> in) {
  return shift(
      node, in, [](auto u, auto, int n) -> decltype(u) { return static_cast<decltype(u)>(u << n); },
      [](auto) { return 0; });
}
// shift_right_logical: zeros shifted in; 0 when the amount is out of range.
std::vector<Literal> kernel_shift_right_logical(const Node& node, std::span<const Literal> in) {
  return shift(
      node, in, [](auto u, auto, int n) -> decltype(u) { return static_cast<decltype(u)>(u >> n); },
      [](auto) { return 0; });
}
// shift_right_arithmetic: copies of the top bit shifted in (u8 and u32 too, as XLA: their bits
// read as signed); out of range gives all copies of the top bit (-1 or 0).
std::vector<Literal> kernel_shift_right_arithmetic(const Node& node, std::span<const Literal> in) {
  return shift(
      node, in, [](auto, auto s, int n) -> decltype(s) { return static_cast<decltype(s)>(s >> n); },
      [](auto s) -> decltype(s) { return s < 0 ? -1 : 0; });
}

std::vector<Literal> kernel_pow(const Node& node, std::span<const Literal> in) {
  return binary(node, in, [&]<class T>(compute_t<T> a, compute_t<T> b) -> compute_t<T> {
    if constexpr (kIsFloat<T>)
      return std::pow(a, b);
    else
      float_only(node, dtype_of<T>());
  });
}

// atan2(y, x): the angle of the point (x, y), in [-pi, pi]; signed zeros pick the side (C's atan2).
std::vector<Literal> kernel_atan2(const Node& node, std::span<const Literal> in) {
  return binary(node, in, [&]<class T>(compute_t<T> y, compute_t<T> x) -> compute_t<T> {
    if constexpr (kIsFloat<T>)
      return std::atan2(y, x);
    else
      float_only(node, dtype_of<T>());
  });
}

// max/min propagate NaN (as lax); max(-0, +0) = +0 and min(-0, +0) = -0.
std::vector<Literal> kernel_max(const Node& node, std::span<const Literal> in) {
  return binary(node, in, []<class T>(compute_t<T> a, compute_t<T> b) -> compute_t<T> {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
      if (a == b) return std::signbit(a) ? b : a;
    }
    return a > b ? a : b;
  });
}
std::vector<Literal> kernel_min(const Node& node, std::span<const Literal> in) {
  return binary(node, in, []<class T>(compute_t<T> a, compute_t<T> b) -> compute_t<T> {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
      if (a == b) return std::signbit(a) ? a : b;
    }
    return a < b ? a : b;
  });
}

// IEEE comparisons: every comparison with NaN is false except ne.
std::vector<Literal> kernel_compare(const Node& node, std::span<const Literal> in) {
  check_elementwise(node, in, 2);
  require(in[0].dtype() == in[1].dtype(), node, "operand dtypes differ");
  Literal out = output(node);
  require(out.dtype() == DType::boolean, node, "result must be bool");
  CompareDir dir = node.attr<CompareAttrs>().dir;
  bool* y = out.data<bool>();
  dispatch_dtype(in[0].dtype(), [&]<class T>() {
    const T* a = in[0].data<T>();
    const T* b = in[1].data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      auto x = load(a[i]), z = load(b[i]);
      switch (dir) {
        case CompareDir::eq:
          y[i] = x == z;
          break;
        case CompareDir::ne:
          y[i] = x != z;
          break;
        case CompareDir::lt:
          y[i] = x < z;
          break;
        case CompareDir::le:
          y[i] = x <= z;
          break;
        case CompareDir::gt:
          y[i] = x > z;
          break;
        case CompareDir::ge:
          y[i] = x >= z;
          break;
      }
    }
  });
  return {out};
}

// select(pred, on_true, on_false); pred is bool, of the result's shape or a scalar.
std::vector<Literal> kernel_select(const Node& node, std::span<const Literal> in) {
  require(in.size() == 3, node, "expects 3 operands");
  Literal out = output(node);
  const Literal& pred = in[0];
  bool scalar_pred = pred.shape().rank() == 0;
  require(pred.dtype() == DType::boolean, node, "predicate must be bool");
  require(scalar_pred || pred.numel() == out.numel(), node, "predicate shape does not match");
  for (size_t k = 1; k < 3; ++k)
    require(in[k].type == out.type, node,
            [&] { return "branch " + in[k].type.str() + " does not match result"; });
  const bool* p = pred.data<bool>();
  for (int64_t i = 0; i < out.numel(); ++i)
    copy_element(out, i, p[scalar_pred ? 0 : i] ? in[1] : in[2], i);
  return {out};
}

// See convert_value in common.h for the rules (float -> int: NaN -> 0, out of range clamps;
// int -> narrower int wraps; x -> bool: x != 0).
std::vector<Literal> kernel_convert(const Node& node, std::span<const Literal> in) {
  check_elementwise(node, in, 1);
  Literal out = output(node);
  dispatch_dtype(in[0].dtype(), [&]<class From>() {
    dispatch_dtype(out.dtype(), [&]<class To>() {
      const From* x = in[0].data<From>();
      To* y = out.data<To>();
      for (int64_t i = 0; i < out.numel(); ++i) y[i] = convert_value<To>(x[i]);
    });
  });
  return {out};
}

}  // namespace lazax::interp
