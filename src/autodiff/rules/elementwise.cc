// VJP and JVP rules of the elementwise primitives. Operands of an elementwise primitive have one
// shape and dtype (lax semantics), so cotangents need no unbroadcasting here: the Tensor API's
// broadcasts are broadcast_in_dim nodes with their own rule.
#include <cmath>

#include "common.h"

namespace lazax::autodiff {
using namespace detail;

namespace {

// Rules of a unary op f with f'(x) = deriv(x, out): ct * f'(x) and t * f'(x). `deriv` is written
// with tensor ops on the saved input/output, so the rule is differentiable again.
template <class Deriv>
Tensors unary_vjp(const OpContext& c, const Tensors& cts, Deriv deriv) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {cts[0] * deriv(c.inputs[0], c.outputs[0])};
}
template <class Deriv>
Tensors unary_jvp(const OpContext& c, const Tensors& ts, Deriv deriv) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  return {ts[0] * deriv(c.inputs[0], c.outputs[0])};
}

// The weight of operand a in max(a, b) (or min): 1 where a wins, 1/2 on ties (as JAX and
// PyTorch), 0 where b wins. A constant: comparisons carry no gradient.
Tensor chooser_weight(const OpContext& c, bool is_max) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  Tensor wins = is_max ? gt(a, b) : lt(a, b);
  return wins.to(a.dtype()) + eq(a, b).to(a.dtype()) * 0.5;
}

Tensors chooser_vjp(const OpContext& c, const Tensors& cts, bool is_max) {
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor(), Tensor()};
  Tensor w = chooser_weight(c, is_max);
  Tensors out(2);
  if (needs_ct(c, 0)) out[0] = cts[0] * w;
  if (needs_ct(c, 1)) out[1] = cts[0] * (1.0 - w);
  return out;
}

Tensors chooser_jvp(const OpContext& c, const Tensors& ts, bool is_max) {
  if (all_undefined(ts) || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  Tensor w = chooser_weight(c, is_max);
  Tensor r;
  if (ts[0].defined()) r = ts[0] * w;
  if (ts[1].defined()) r = add_maybe(r, ts[1] * (1.0 - w));
  return {r};
}

}  // namespace

// ---- leaves of arithmetic ----

Tensors vjp_add(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined()) return no_cts(c);
  return {needs_ct(c, 0) ? cts[0] : Tensor(), needs_ct(c, 1) ? cts[0] : Tensor()};
}
Tensors jvp_add(const OpContext&, const Tensors& ts) { return {add_maybe(ts[0], ts[1])}; }

Tensors vjp_sub(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined()) return no_cts(c);
  return {needs_ct(c, 0) ? cts[0] : Tensor(), needs_ct(c, 1) ? neg(cts[0]) : Tensor()};
}
Tensors jvp_sub(const OpContext&, const Tensors& ts) {
  if (!ts[1].defined()) return {ts[0]};
  if (!ts[0].defined()) return {neg(ts[1])};
  return {ts[0] - ts[1]};
}

Tensors vjp_mul(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return no_cts(c);
  return {needs_ct(c, 0) ? cts[0] * c.inputs[1] : Tensor(),
          needs_ct(c, 1) ? c.inputs[0] * cts[0] : Tensor()};
}
Tensors jvp_mul(const OpContext& c, const Tensors& ts) {
  if (!is_floating(c.inputs[0].dtype())) return {Tensor()};
  Tensor r;
  if (ts[0].defined()) r = ts[0] * c.inputs[1];
  if (ts[1].defined()) r = add_maybe(r, c.inputs[0] * ts[1]);
  return {r};
}

// out = a / b: d/da = 1/b, d/db = -out/b.
Tensors vjp_div(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return no_cts(c);
  Tensor g = cts[0] / c.inputs[1];
  return {needs_ct(c, 0) ? g : Tensor(), needs_ct(c, 1) ? neg(g * c.outputs[0]) : Tensor()};
}
Tensors jvp_div(const OpContext& c, const Tensors& ts) {
  if (all_undefined(ts) || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  Tensor num = ts[0];
  if (ts[1].defined())
    num = ts[0].defined() ? ts[0] - ts[1] * c.outputs[0] : neg(ts[1] * c.outputs[0]);
  return {num / c.inputs[1]};
}

Tensors vjp_neg(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {neg(cts[0])};
}
Tensors jvp_neg(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  return {neg(ts[0])};
}

// ---- unary functions ----
// d/dx written with tensor ops on the saved input x and output out.
#define LAZAX_UNARY_RULES(name, expr)                                                           \
  Tensors vjp_##name(const OpContext& c, const Tensors& cts) {                                  \
    return unary_vjp(c, cts,                                                                    \
                     []([[maybe_unused]] const Tensor& x, [[maybe_unused]] const Tensor& out) { \
                       return (expr);                                                           \
                     });                                                                        \
  }                                                                                             \
  Tensors jvp_##name(const OpContext& c, const Tensors& ts) {                                   \
    return unary_jvp(c, ts,                                                                     \
                     []([[maybe_unused]] const Tensor& x, [[maybe_unused]] const Tensor& out) { \
                       return (expr);                                                           \
                     });                                                                        \
  }
LAZAX_UNARY_RULES(abs, sign(x))
LAZAX_UNARY_RULES(exp, out)
LAZAX_UNARY_RULES(log, 1.0 / x)
LAZAX_UNARY_RULES(log1p, 1.0 / (x + 1.0))
LAZAX_UNARY_RULES(expm1, out + 1.0)
LAZAX_UNARY_RULES(tanh, 1.0 - out * out)
LAZAX_UNARY_RULES(logistic, out * (1.0 - out))
LAZAX_UNARY_RULES(sqrt, 0.5 / out)
LAZAX_UNARY_RULES(rsqrt, out / x * -0.5)
LAZAX_UNARY_RULES(sin, cos(x))
LAZAX_UNARY_RULES(cos, -sin(x))
LAZAX_UNARY_RULES(erf, exp(-(x* x)) * (2.0 / std::sqrt(M_PI)))
LAZAX_UNARY_RULES(erf_inv, exp(out* out) * (std::sqrt(M_PI) / 2.0))
LAZAX_UNARY_RULES(exp2, out* M_LN2)
LAZAX_UNARY_RULES(tan, out* out + 1.0)
#undef LAZAX_UNARY_RULES

// relu passes the cotangent (tangent) where x > 0 or x is NaN, and 0 where x <= 0 (so 0 at +-0),
// as PyTorch's threshold_backward. A select, not a product: a NaN cotangent at x <= 0 gives 0, as
// there. Reads only the input (the row is flagged kRulesSkipOutputs).
namespace {
Tensor relu_pass(const Tensor& x, const Tensor& g) {
  Tensor zero = zeros_like_type(x);
  return where(le(x, zero), zero, g);
}
}  // namespace
Tensors vjp_relu(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {relu_pass(c.inputs[0], cts[0])};
}
Tensors jvp_relu(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  return {relu_pass(c.inputs[0], ts[0])};
}

// Piecewise-constant functions: zero derivative almost everywhere (as JAX and PyTorch).
Tensors vjp_sign(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_sign(const OpContext& c, const Tensors&) { return no_tangents(c); }
Tensors vjp_floor(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_floor(const OpContext& c, const Tensors&) { return no_tangents(c); }
Tensors vjp_round(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_round(const OpContext& c, const Tensors&) { return no_tangents(c); }

// Piecewise-constant, bool and integer results: no derivative (as JAX and PyTorch).
#define LAZAX_NO_DERIVATIVE(name)                                              \
  Tensors vjp_##name(const OpContext& c, const Tensors&) { return no_cts(c); } \
  Tensors jvp_##name(const OpContext& c, const Tensors&) { return no_tangents(c); }
LAZAX_NO_DERIVATIVE(ceil)
LAZAX_NO_DERIVATIVE(is_finite)
LAZAX_NO_DERIVATIVE(and_)
LAZAX_NO_DERIVATIVE(or_)
LAZAX_NO_DERIVATIVE(xor_)
LAZAX_NO_DERIVATIVE(not_)
LAZAX_NO_DERIVATIVE(shift_left)
LAZAX_NO_DERIVATIVE(shift_right_logical)
LAZAX_NO_DERIVATIVE(shift_right_arithmetic)
#undef LAZAX_NO_DERIVATIVE

// ---- rem ----
// rem(a, b) = a - trunc(a / b) * b: d/da = 1, d/db = -trunc(a / b) (PyTorch's fmod backward).
// Reads only the inputs (the row is flagged kRulesSkipOutputs).
namespace {
Tensor trunc_quotient(const OpContext& c) {
  Tensor q = c.inputs[0] / c.inputs[1];
  Tensor up = record_op(OpCode::ceil, {&q});
  Tensor down = record_op(OpCode::floor, {&q});
  return record_op(OpCode::select, {lt(q, zeros_like_type(q)), up, down});
}
}  // namespace
Tensors vjp_rem(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return no_cts(c);
  return {needs_ct(c, 0) ? cts[0] : Tensor(),
          needs_ct(c, 1) ? neg(cts[0] * trunc_quotient(c)) : Tensor()};
}
Tensors jvp_rem(const OpContext& c, const Tensors& ts) {
  if (all_undefined(ts) || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  if (!ts[1].defined()) return {ts[0]};
  Tensor d = neg(ts[1] * trunc_quotient(c));
  return {add_maybe(ts[0], d)};
}

// ---- clamp ----
// clamp(lo, x, hi), with PyTorch's clamp gradients: x where lo <= x <= hi; lo where x < lo and
// lo < hi; hi where x > hi or hi < lo (so NaN passes nothing). A scalar bound sums its share.
// Reads only the inputs (kRulesSkipOutputs).
namespace {
struct ClampMasks {
  Tensor x, lo, hi;  // bool, of x's shape
};
ClampMasks clamp_masks(const OpContext& c) {
  const Tensor &lo = c.inputs[0], &x = c.inputs[1], &hi = c.inputs[2];
  Tensor f = zeros(x.sizes(), DType::boolean);
  return {where(ge(x, lo), le(x, hi), f), where(lt(x, lo), lt(lo, hi), f),
          where(gt(x, hi), ones(x.sizes(), DType::boolean), lt(hi, lo))};
}
Tensor pass(const Tensor& mask, const Tensor& g) { return where(mask, g, 0.0); }
Tensor to_bound(const Tensor& g, const Tensor& bound) {
  return bound.dim() == 0 && g.dim() != 0 ? sum(g) : g;
}
}  // namespace
Tensors vjp_clamp(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !is_floating(c.inputs[1].dtype())) return no_cts(c);
  ClampMasks m = clamp_masks(c);
  const Tensor& g = cts[0];
  return {needs_ct(c, 0) ? to_bound(pass(m.lo, g), c.inputs[0]) : Tensor(),
          needs_ct(c, 1) ? pass(m.x, g) : Tensor(),
          needs_ct(c, 2) ? to_bound(pass(m.hi, g), c.inputs[2]) : Tensor()};
}
Tensors jvp_clamp(const OpContext& c, const Tensors& ts) {
  if (all_undefined(ts) || !is_floating(c.inputs[1].dtype())) return {Tensor()};
  ClampMasks m = clamp_masks(c);
  Tensor r;
  if (ts[0].defined()) r = pass(m.lo, ts[0]);
  if (ts[1].defined()) r = add_maybe(r, pass(m.x, ts[1]));
  if (ts[2].defined()) r = add_maybe(r, pass(m.hi, ts[2]));
  return {r};
}

// ---- pow ----
// d/da a^b = b a^(b-1) (0 where b == 0, so 0^0 has slope 0 as in JAX);
// d/db a^b = a^b log(a), with log(0) replaced by 0 (JAX's _replace_zero).
namespace {
Tensor pow_dlhs(const OpContext& c) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  Tensor zero = full_like_value(b, 0.0);
  return record_op(OpCode::select, {eq(b, zero), zero, b * pow(a, b - 1.0)});
}
Tensor pow_drhs(const OpContext& c) {
  const Tensor& a = c.inputs[0];
  Tensor safe =
      record_op(OpCode::select, {eq(a, full_like_value(a, 0.0)), full_like_value(a, 1.0), a});
  return c.outputs[0] * log(safe);
}
}  // namespace

Tensors vjp_pow(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined()) return no_cts(c);
  return {needs_ct(c, 0) ? cts[0] * pow_dlhs(c) : Tensor(),
          needs_ct(c, 1) ? cts[0] * pow_drhs(c) : Tensor()};
}
// ---- atan2 ----
// atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
namespace {
Tensor atan2_denominator(const OpContext& c) {
  const Tensor &y = c.inputs[0], &x = c.inputs[1];
  return x * x + y * y;
}
}  // namespace

Tensors vjp_atan2(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined()) return no_cts(c);
  Tensor scaled = cts[0] / atan2_denominator(c);
  return {needs_ct(c, 0) ? scaled * c.inputs[1] : Tensor(),
          needs_ct(c, 1) ? -(scaled * c.inputs[0]) : Tensor()};
}
Tensors jvp_atan2(const OpContext& c, const Tensors& ts) {
  Tensor r;
  if (ts[0].defined()) r = ts[0] * c.inputs[1];
  if (ts[1].defined()) r = add_maybe(r, -(ts[1] * c.inputs[0]));
  if (!r.defined()) return {Tensor()};
  return {r / atan2_denominator(c)};
}

Tensors jvp_pow(const OpContext& c, const Tensors& ts) {
  Tensor r;
  if (ts[0].defined()) r = ts[0] * pow_dlhs(c);
  if (ts[1].defined()) r = add_maybe(r, ts[1] * pow_drhs(c));
  return {r};
}

// ---- max / min ----
Tensors vjp_max(const OpContext& c, const Tensors& cts) { return chooser_vjp(c, cts, true); }
Tensors jvp_max(const OpContext& c, const Tensors& ts) { return chooser_jvp(c, ts, true); }
Tensors vjp_min(const OpContext& c, const Tensors& cts) { return chooser_vjp(c, cts, false); }
Tensors jvp_min(const OpContext& c, const Tensors& ts) { return chooser_jvp(c, ts, false); }

// ---- compare, select, convert ----

// Bool results: never on the tape, no derivative.
Tensors vjp_compare(const OpContext& c, const Tensors&) { return no_cts(c); }
Tensors jvp_compare(const OpContext& c, const Tensors&) { return no_tangents(c); }

// select(pred, on_true, on_false): the cotangent goes to the branch that was picked; the
// predicate gets none.
Tensors vjp_select(const OpContext& c, const Tensors& cts) {
  const Tensor& ct = cts[0];
  if (!ct.defined() || !is_floating(c.inputs[1].dtype())) return no_cts(c);
  const Tensor& pred = c.inputs[0];
  Tensor zero = zeros_like_type(ct);
  return {Tensor(), needs_ct(c, 1) ? record_op(OpCode::select, {pred, ct, zero}) : Tensor(),
          needs_ct(c, 2) ? record_op(OpCode::select, {pred, zero, ct}) : Tensor()};
}
Tensors jvp_select(const OpContext& c, const Tensors& ts) {
  if ((!ts[1].defined() && !ts[2].defined()) || !is_floating(c.outputs[0].dtype()))
    return {Tensor()};
  const Tensor& like = c.outputs[0];
  return {record_op(OpCode::select, {c.inputs[0], or_zeros(ts[1], like), or_zeros(ts[2], like)})};
}

// Between floating dtypes the cotangent converts back; to or from integers and bool there is
// no derivative.
Tensors vjp_convert(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0) || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  return {cts[0].to(c.inputs[0].dtype())};
}
Tensors jvp_convert(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined() || !is_floating(c.inputs[0].dtype()) || !is_floating(c.outputs[0].dtype()))
    return {Tensor()};
  return {ts[0].to(c.outputs[0].dtype())};
}

}  // namespace lazax::autodiff
