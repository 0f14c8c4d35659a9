// vmath.h's functions: compiled once per SIMD target by Highway's foreach_target (this file
// includes itself through HWY_TARGET_INCLUDE), chosen at the first call by HWY_DYNAMIC_DISPATCH.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vmath.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
//
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "vmath.h"

HWY_BEFORE_NAMESPACE();
namespace lazax::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// e^x as libm gives it: NaN stays NaN, x above log(FLT_MAX) is +inf (the contrib Exp is valid
// up to 104 only and maps NaN to 0).
HWY_INLINE VF ExpIeee(DF d, VF x) {
  const VF y = hn::Exp(d, x);
  const VF big =
      hn::IfThenElse(hn::Gt(x, hn::Set(d, 88.72283905206835f)), hn::Set(d, HUGE_VALF), y);
  return hn::IfThenElse(hn::IsNaN(x), x, big);
}

HWY_INLINE VF TanhIeee(DF d, VF x) { return hn::Tanh(d, x); }  // NaN and +-inf as libm

// As the reference kernel: 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below.
HWY_INLINE VF LogisticIeee(DF d, VF x) {
  const VF one = hn::Set(d, 1.0f);
  const VF e = ExpIeee(d, hn::Neg(hn::Abs(x)));
  const VF denom = hn::Add(one, e);
  return hn::IfThenElse(hn::Ge(x, hn::Zero(d)), hn::Div(one, denom), hn::Div(e, denom));
}

template <class F>
HWY_INLINE void Apply(const float* a, float* out, int64_t n, F f) {
  const DF d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(f(d, hn::LoadU(d, a + i)), d, out + i);
  if (i == n) return;
  HWY_ALIGN float tail[hn::MaxLanes(d)] = {};
  for (int64_t k = i; k < n; ++k) tail[k - i] = a[k];
  hn::Store(f(d, hn::Load(d, tail)), d, tail);
  for (int64_t k = i; k < n; ++k) out[k] = tail[k - i];
}

void ExpF32(const float* a, float* d, int64_t n) { Apply(a, d, n, ExpIeee); }
void TanhF32(const float* a, float* d, int64_t n) { Apply(a, d, n, TanhIeee); }
void LogisticF32(const float* a, float* d, int64_t n) { Apply(a, d, n, LogisticIeee); }

}  // namespace lazax::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lazax::cpu {
HWY_EXPORT(ExpF32);
HWY_EXPORT(TanhF32);
HWY_EXPORT(LogisticF32);

void vexp(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(ExpF32)(a, d, n); }
void vtanh(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(TanhF32)(a, d, n); }
void vlogistic(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(LogisticF32)(a, d, n); }
}  // namespace lazax::cpu
#endif
