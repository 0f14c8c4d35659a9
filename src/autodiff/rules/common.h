// Helpers shared by the VJP/JVP rule files: recording a primitive with exact attributes, zeros,
// and the conventions for undefined (zero) cotangents and tangents.
#pragma once
#include <string>
#include <vector>

#include "lazax/autodiff/rules.h"
#include "lazax/autodiff/tape.h"
#include "lazax/core/small_vec.h"

namespace lazax::autodiff::detail {

using Tensors = std::vector<Tensor>;

inline bool all_undefined(const Tensors& ts) {
  for (const Tensor& t : ts)
    if (t.defined()) return false;
  return true;
}

// Whether input i of the op wants a cotangent: floating, and on the tape.
inline bool needs_ct(const OpContext& c, size_t i) {
  const Tensor& x = c.inputs[i];
  return x.defined() && is_floating(x.dtype()) && x.requires_grad();
}

inline Tensor zeros_like_type(const Tensor& t) { return zeros(t.sizes(), t.dtype()); }
// `t`, or zeros of the type of `like` when `t` is undefined.
inline Tensor or_zeros(const Tensor& t, const Tensor& like) {
  return t.defined() ? t : zeros_like_type(like);
}

// a + b where either may be undefined (zero).
inline Tensor add_maybe(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}

// A scalar of `like`'s dtype broadcast to its shape.
inline Tensor full_like_value(const Tensor& like, double v) {
  return full(like.sizes(), v, like.dtype());
}

// The rule for an op that has no derivative (or whose results are never floating).
inline Tensors no_cts(const OpContext& c) { return Tensors(c.inputs.size()); }
inline Tensors no_tangents(const OpContext& c) { return Tensors(c.outputs.size()); }

}  // namespace lazax::autodiff::detail
