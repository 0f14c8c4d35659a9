// Reference kernels of the elementwise ops, constant and iota. f16/bf16 compute in float and
// round on store; integer arithmetic wraps (two's complement, never C++ UB); bool computes as
// 0/1 and stores x != 0. Semantics follow jax.lax.
#include <cmath>
#include <limits>

#include "common.h"
#include "kernels.h"

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
