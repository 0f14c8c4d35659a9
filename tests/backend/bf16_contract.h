// The bf16 contract of the cpu backend's differential tests (issue 27, docs/PRECISION.md): which
// primitives may round a bf16 result differently from the reference interpreter, and how far
// apart two values are in bf16 epsilons. Shared by CpuVsReference.EveryCaseInBf16 and the bf16
// mode of CpuRandomPrograms.
#pragma once
#include <algorithm>
#include <cmath>

#include "lazax/ir/op.h"

namespace lazax::testing {

// The ops whose f32 value before the one rounding to bf16 may differ from the reference's: SIMD
// math (vmath.h, a few f32 ulp) and sums in another order (oneDNN's blocked dot, tree
// reductions). Every other op must give the reference's bits: both compute in f32 (or exactly)
// and round to nearest even once.
inline bool bf16_may_differ(OpCode op) {
  switch (op) {
    case OpCode::dot_general:
    case OpCode::reduce_sum:
    case OpCode::reduce_prod:
    case OpCode::cumsum:
    case OpCode::cumprod:
    case OpCode::exp:
    case OpCode::exp2:
    case OpCode::expm1:
    case OpCode::log:
    case OpCode::log1p:
    case OpCode::tanh:
    case OpCode::logistic:
    case OpCode::sin:
    case OpCode::cos:
    case OpCode::tan:
    case OpCode::erf:
    case OpCode::erf_inv:
    case OpCode::pow:
    case OpCode::atan2:
    case OpCode::rsqrt:
      return true;
    default:
      return false;
  }
}

// How far apart two values are, in units of bf16's epsilon (2^-7) relative to max(1, |want|);
// 0: the same value (or both NaN), infinite when only one is NaN or infinite.
inline double bf16_epsilons_apart(double got, double want) {
  if ((std::isnan(want) && std::isnan(got)) || got == want) return 0;
  if (std::isnan(want) || std::isnan(got) || std::isinf(want) || std::isinf(got)) return INFINITY;
  return std::fabs(got - want) / (0x1p-7 * std::max(1.0, std::fabs(want)));
}

}  // namespace lazax::testing
