// vmath.h's functions: compiled once per SIMD target by Highway's foreach_target (this file
// includes itself through HWY_TARGET_INCLUDE), chosen at the first call by HWY_DYNAMIC_DISPATCH.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vmath.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
//
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cmath>

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

// Highway's sin / cos where they are valid, libm's in the lanes beyond (rare: a vector with
// one such lane is redone lane by lane).
// Below 2^-12, libm's correctly rounded sin(x) is x and cos(x) is 1, which Highway's polynomials
// miss by an ulp (cos(0) = 0.99999994): kept exact, as a compare against 1 downstream sees it.
template <bool kSin>
HWY_INLINE VF SinCosIeee(DF d, VF x) {
  const auto tiny = hn::Lt(hn::Abs(x), hn::Set(d, 0x1p-12f));
  const VF y = kSin ? hn::IfThenElse(tiny, x, hn::Sin(d, x))
                    : hn::IfThenElse(tiny, hn::Set(d, 1.0f), hn::Cos(d, x));
  const auto valid = hn::Le(hn::Abs(x), hn::Set(d, 39000.0f));  // false for NaN
  if (HWY_LIKELY(hn::AllTrue(d, valid))) return y;
  HWY_ALIGN float xs[hn::MaxLanes(d)];
  HWY_ALIGN float ys[hn::MaxLanes(d)];
  hn::Store(x, d, xs);
  hn::Store(y, d, ys);
  for (size_t i = 0; i < hn::Lanes(d); ++i)
    if (!(std::fabs(xs[i]) <= 39000.0f)) ys[i] = kSin ? std::sin(xs[i]) : std::cos(xs[i]);
  return hn::Load(d, ys);
}
HWY_INLINE VF SinIeee(DF d, VF x) { return SinCosIeee<true>(d, x); }
HWY_INLINE VF CosIeee(DF d, VF x) { return SinCosIeee<false>(d, x); }

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
void SinF32(const float* a, float* d, int64_t n) { Apply(a, d, n, SinIeee); }
void CosF32(const float* a, float* d, int64_t n) { Apply(a, d, n, CosIeee); }

}  // namespace lazax::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lazax::cpu {
HWY_EXPORT(ExpF32);
HWY_EXPORT(TanhF32);
HWY_EXPORT(LogisticF32);
HWY_EXPORT(SinF32);
HWY_EXPORT(CosF32);

void vexp(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(ExpF32)(a, d, n); }
void vtanh(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(TanhF32)(a, d, n); }
void vlogistic(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(LogisticF32)(a, d, n); }
void vsin(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(SinF32)(a, d, n); }
void vcos(const float* a, float* d, int64_t n) { HWY_DYNAMIC_DISPATCH(CosF32)(a, d, n); }
}  // namespace lazax::cpu
#endif
