// Elementwise ops (src/api/ops_elementwise.cc): arithmetic, math functions, comparisons and
// where, with NumPy/PyTorch broadcasting and PyTorch's type promotion.
// Included by lazax/api/tensor.h (and lazax/lazax.h); part of the Tensor API.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

// ---- elementwise (NumPy/PyTorch broadcasting and type promotion) ----
// Promotion follows PyTorch: a 0-d tensor next to one with dimensions changes its dtype only when
// its category (bool < integer < floating) is higher; host scalars: see IntegerScalar above.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // true division (ints promote to f32)
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, double exponent);
// The angle of the point (b, a) in [-pi, pi], elementwise: torch.atan2 (ints promote to f32).
Tensor atan2(const Tensor& a, const Tensor& b);
template <IntegerScalar I>  // an integer tensor to an integer power stays an integer tensor
Tensor pow(const Tensor& a, I exponent) {
  return pow(a, integer_scalar(a, exponent));
}
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);
template <IntegerScalar I>
Tensor operator+(const Tensor& a, I b) {
  return add(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator-(const Tensor& a, I b) {
  return sub(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator*(const Tensor& a, I b) {
  return mul(a, integer_scalar(a, b));
}
// True division: the result is floating, and the divisor's value is not first wrapped to the
// tensor's integer dtype (u8 / -3 divides by -3), as with a floating scalar.
template <IntegerScalar I>
Tensor operator/(const Tensor& a, I b) {
  return a / static_cast<double>(b);
}
template <IntegerScalar I>
Tensor operator+(I a, const Tensor& b) {
  return add(integer_scalar(b, a), b);
}
template <IntegerScalar I>
Tensor operator-(I a, const Tensor& b) {
  return sub(integer_scalar(b, a), b);
}
template <IntegerScalar I>
Tensor operator*(I a, const Tensor& b) {
  return mul(integer_scalar(b, a), b);
}
template <IntegerScalar I>
Tensor operator/(I a, const Tensor& b) {
  return static_cast<double>(a) / b;
}
Tensor neg(const Tensor& a);
Tensor abs(const Tensor& a);
Tensor sign(const Tensor& a);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor log1p(const Tensor& a);
Tensor expm1(const Tensor& a);
Tensor tanh(const Tensor& a);
Tensor sigmoid(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor rsqrt(const Tensor& a);
Tensor sin(const Tensor& a);
Tensor cos(const Tensor& a);
Tensor erf(const Tensor& a);
Tensor floor(const Tensor& a);
Tensor round(const Tensor& a);  // half to even, as torch.round
Tensor square(const Tensor& a);
// As torch.clamp: min(max(x, lo), hi) (so hi wins when lo > hi), NaN stays NaN, the gradient
// flows where lo <= x <= hi; integer and bool tensors become f32 (the bounds are floating). One
// `clamp` primitive (lax.clamp) with the missing bound at -inf or +inf.
Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi);
Tensor ceil(const Tensor& a);
Tensor erfinv(const Tensor& a);
Tensor exp2(const Tensor& a);
Tensor tan(const Tensor& a);
// torch.isfinite: bool; integer and bool tensors are finite everywhere.
Tensor isfinite(const Tensor& a);
// torch.fmod: the remainder of truncating division, with a's sign (the `rem` primitive, C's fmod).
// Unlike PyTorch, an integer division by zero does not raise: x fmod 0 is x (docs/IR.md `rem`).
Tensor fmod(const Tensor& a, const Tensor& b);
// torch.remainder: Python's modulo, with b's sign: fmod, plus b where the signs differ.
Tensor remainder(const Tensor& a, const Tensor& b);
// Bitwise ops of integer and bool tensors (logical on bool), with PyTorch's promotion.
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_not(const Tensor& a);
// Shifts of integer tensors. Left: amounts < 0 or >= the bit width give 0. Right: arithmetic for
// signed dtypes, logical for unsigned ones (u8, u32; as PyTorch); out-of-range amounts give all
// copies of the sign bit (signed) or 0 (unsigned). Out-of-range amounts follow lax and PyTorch 2
// (torch 1.13 takes them modulo the width).
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
// Comparison operators give bool tensors (as torch::Tensor's), never a C++ bool: to ask whether
// two handles are the same tensor, compare a.impl() == b.impl().
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, double b);
Tensor operator!=(const Tensor& a, double b);
Tensor operator<(const Tensor& a, double b);
Tensor operator<=(const Tensor& a, double b);
Tensor operator>(const Tensor& a, double b);
Tensor operator>=(const Tensor& a, double b);
// A scalar on the left compares as the mirrored comparison with the scalar on the right.
Tensor operator==(double a, const Tensor& b);
Tensor operator!=(double a, const Tensor& b);
Tensor operator<(double a, const Tensor& b);
Tensor operator<=(double a, const Tensor& b);
Tensor operator>(double a, const Tensor& b);
Tensor operator>=(double a, const Tensor& b);
template <IntegerScalar I>
Tensor operator==(const Tensor& a, I b) {
  return eq(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator!=(const Tensor& a, I b) {
  return ne(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator<(const Tensor& a, I b) {
  return lt(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator<=(const Tensor& a, I b) {
  return le(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator>(const Tensor& a, I b) {
  return gt(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator>=(const Tensor& a, I b) {
  return ge(a, integer_scalar(a, b));
}
template <IntegerScalar I>
Tensor operator==(I a, const Tensor& b) {
  return b == a;
}
template <IntegerScalar I>
Tensor operator!=(I a, const Tensor& b) {
  return b != a;
}
template <IntegerScalar I>
Tensor operator<(I a, const Tensor& b) {
  return b > a;
}
template <IntegerScalar I>
Tensor operator<=(I a, const Tensor& b) {
  return b >= a;
}
template <IntegerScalar I>
Tensor operator>(I a, const Tensor& b) {
  return b < a;
}
template <IntegerScalar I>
Tensor operator>=(I a, const Tensor& b) {
  return b <= a;
}
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, double b);
template <IntegerScalar I>
Tensor where(const Tensor& cond, const Tensor& a, I b) {
  return where(cond, a, integer_scalar(a, b));
}

}  // namespace lazax
