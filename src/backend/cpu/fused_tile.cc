// run_fused_tile (fused_code.h): one tile of a fused kernel. The ops are written with Highway
// and compiled once per SIMD target (this file includes itself through HWY_TARGET_INCLUDE);
// HWY_DYNAMIC_DISPATCH picks the widest the machine has at the first call. Each op matches the
// reference interpreter's kernel: max/min propagate NaN and order -0 below +0, relu keeps NaN
// and -0, sums accumulate in f64.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "fused_tile.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
//
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bf16_bits.h"
#include "fused_code.h"
#include "lazax/interp/scalar_math.h"
#include "vmath.h"

HWY_BEFORE_NAMESPACE();
namespace lazax::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
static_assert(HWY_MAX_BYTES / sizeof(float) <= kRegPad, "registers are padded to whole vectors");

HWY_INLINE VF MaxRef(DF d, VF a, VF b) {
  VF r = hn::IfThenElse(hn::Gt(a, b), a, b);
  r = hn::IfThenElse(hn::Eq(a, b), hn::And(a, b), r);  // max(-0, +0) = +0
  return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Set(d, NAN), r);
}
HWY_INLINE VF MinRef(DF d, VF a, VF b) {
  VF r = hn::IfThenElse(hn::Lt(a, b), a, b);
  r = hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b), r);  // min(-0, +0) = -0
  return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Set(d, NAN), r);
}

// x rounded to the nearest bf16, in f32 (bf16_bits.h's round_bf16, a vector at a time).
HWY_INLINE VF RoundBf16(DF df, VF x) {
  const hn::RebindToUnsigned<DF> du;
  const auto b = hn::BitCast(du, x), hi = hn::Set(du, 0xffff0000u);
  const auto lsb = hn::And(hn::ShiftRight<16>(b), hn::Set(du, 1u));
  const auto near = hn::And(hn::Add(b, hn::Add(hn::Set(du, 0x7fffu), lsb)), hi);
  const auto quiet = hn::And(hn::Or(b, hn::Set(du, 0x00400000u)), hi);
  return hn::IfThenElse(hn::IsNaN(x), hn::BitCast(df, quiet), hn::BitCast(df, near));
}

// n bf16 values from p, widened, into d.
void Widen(const uint16_t* p, float* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = widen_bf16(p[i]);
}

// 1.0 where the compare holds, else 0.0. ne is "not eq": Highway's Ne is the ordered compare,
// false for NaN, where IEEE's != is true.
template <FOp kOp>
HWY_INLINE VF OneIf(DF df, VF x, VF y) {
  const VF one = hn::Set(df, 1.0f);
  if constexpr (kOp == FOp::lt) return hn::IfThenElseZero(hn::Lt(x, y), one);
  if constexpr (kOp == FOp::le) return hn::IfThenElseZero(hn::Le(x, y), one);
  if constexpr (kOp == FOp::gt) return hn::IfThenElseZero(hn::Gt(x, y), one);
  if constexpr (kOp == FOp::ge) return hn::IfThenElseZero(hn::Ge(x, y), one);
  if constexpr (kOp == FOp::eq) return hn::IfThenElseZero(hn::Eq(x, y), one);
  return hn::IfThenZeroElse(hn::Eq(x, y), one);
}

// d[i] = f(a[i], ...) for i < n (a whole number of vectors); d may be an operand.
template <class F>
HWY_INLINE void Map1(const float* a, float* d, int64_t n, F f) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t i = 0; i < n; i += lanes) hn::StoreU(f(df, hn::LoadU(df, a + i)), df, d + i);
}
template <class F>
HWY_INLINE void Map2(const float* a, const float* b, float* d, int64_t n, F f) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t i = 0; i < n; i += lanes)
    hn::StoreU(f(df, hn::LoadU(df, a + i), hn::LoadU(df, b + i)), df, d + i);
}

// The f64-accumulated sum of x[0, n) (four accumulators: the adds do not wait on each other).
float SumRow(const float* HWY_RESTRICT x, int64_t n) {
  int64_t i = 0;
  double s = 0;
#if HWY_TARGET != HWY_SCALAR
  const DF df;
  const hn::Half<DF> dh;
  const hn::Rebind<double, hn::Half<DF>> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd), a2 = hn::Zero(dd), a3 = hn::Zero(dd);
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const VF v = hn::LoadU(df, x + i), w = hn::LoadU(df, x + i + lanes);
    a0 = hn::Add(a0, hn::PromoteTo(dd, hn::LowerHalf(dh, v)));
    a1 = hn::Add(a1, hn::PromoteTo(dd, hn::UpperHalf(dh, v)));
    a2 = hn::Add(a2, hn::PromoteTo(dd, hn::LowerHalf(dh, w)));
    a3 = hn::Add(a3, hn::PromoteTo(dd, hn::UpperHalf(dh, w)));
  }
  for (; i + lanes <= n; i += lanes) {
    const VF v = hn::LoadU(df, x + i);
    a0 = hn::Add(a0, hn::PromoteTo(dd, hn::LowerHalf(dh, v)));
    a1 = hn::Add(a1, hn::PromoteTo(dd, hn::UpperHalf(dh, v)));
  }
  s = hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
#endif
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  return static_cast<float>(s);
}

// max (or min) of x[0, n): NaN if any element is NaN. (Which zero a max over +0 and -0 gives is
// not specified, as in XLA.) Two accumulators, and NaNs are tracked apart, so that the loop
// runs at the speed of the loads.
template <bool kMax>
float ExtremeRow(const float* HWY_RESTRICT x, int64_t n) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  auto pick = [](VF a, VF b) { return kMax ? hn::Max(a, b) : hn::Min(a, b); };
  VF acc0 = hn::Set(df, kMax ? -INFINITY : INFINITY), acc1 = acc0;
  VF nan = hn::Zero(df);  // x - x: 0, or NaN for NaN and infinities
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const VF v = hn::LoadU(df, x + i), w = hn::LoadU(df, x + i + lanes);
    acc0 = pick(acc0, v);
    acc1 = pick(acc1, w);
    nan = hn::Add(nan, hn::Add(hn::Sub(v, v), hn::Sub(w, w)));
  }
  for (; i + lanes <= n; i += lanes) {
    const VF v = hn::LoadU(df, x + i);
    acc0 = pick(acc0, v);
    nan = hn::Add(nan, hn::Sub(v, v));
  }
  HWY_ALIGN float rest[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(pick(acc0, acc1), df, rest);
  float r = kMax ? -INFINITY : INFINITY;
  bool any_nan = !hn::AllFalse(df, hn::IsNaN(nan));
  for (int64_t l = 0; l < lanes; ++l) r = kMax ? std::max(r, rest[l]) : std::min(r, rest[l]);
  for (; i < n; ++i) {
    any_nan = any_nan || std::isnan(x[i]);
    r = kMax ? std::max(r, x[i]) : std::min(r, x[i]);
  }
  if (!any_nan) return r;
  // x - x is NaN for infinities too: look again
  for (int64_t k = 0; k < n; ++k)
    if (std::isnan(x[k])) return NAN;
  return r;
}

// d = f(a, b) over `nr` rows of `c` elements, where an operand flagged `_row` is a row register
// (one value per row, taken over the row). Rows need not be whole vectors: each row ends with
// `s`, the scalar f.
template <class F, class S>
HWY_INLINE void RowMap2(const float* a, bool a_row, const float* b, bool b_row, float* d,
                        int64_t nr, int64_t c, F f, S s) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t r = 0; r < nr; ++r) {
    const int64_t base = r * c;
    const VF va = hn::Set(df, a_row ? a[r] : 0.0f), vb = hn::Set(df, b_row ? b[r] : 0.0f);
    int64_t j = 0;
    for (; j + lanes <= c; j += lanes) {
      const VF x = a_row ? va : hn::LoadU(df, a + base + j);
      const VF y = b_row ? vb : hn::LoadU(df, b + base + j);
      hn::StoreU(f(x, y), df, d + base + j);
    }
    for (; j < c; ++j) d[base + j] = s(a_row ? a[r] : a[base + j], b_row ? b[r] : b[base + j]);
  }
}

// The ops computed one element at a time, each with the reference kernel's <cmath> call (so the
// same bits; src/interp/elementwise.cc).
void ScalarUnary(FOp op, const float* a, float* d, int64_t m) {
  switch (op) {
    case FOp::sign:
      for (int64_t i = 0; i < m; ++i)
        d[i] = std::isnan(a[i]) || a[i] == 0 ? a[i] : std::copysign(1.0f, a[i]);
      break;
    case FOp::floor:
      for (int64_t i = 0; i < m; ++i) d[i] = std::floor(a[i]);
      break;
    case FOp::ceil:
      for (int64_t i = 0; i < m; ++i) d[i] = std::ceil(a[i]);
      break;
    case FOp::round:
      for (int64_t i = 0; i < m; ++i) d[i] = std::round(a[i]);
      break;
    case FOp::log1p:
      for (int64_t i = 0; i < m; ++i) d[i] = std::log1p(a[i]);
      break;
    case FOp::expm1:
      for (int64_t i = 0; i < m; ++i) d[i] = std::expm1(a[i]);
      break;
    case FOp::exp2:
      for (int64_t i = 0; i < m; ++i) d[i] = std::exp2(a[i]);
      break;
    case FOp::tan:
      for (int64_t i = 0; i < m; ++i) d[i] = std::tan(a[i]);
      break;
    case FOp::erf_inv:
      for (int64_t i = 0; i < m; ++i)
        d[i] = static_cast<float>(interp::erf_inv_double(static_cast<double>(a[i])));
      break;
    case FOp::is_finite:
      for (int64_t i = 0; i < m; ++i) d[i] = std::isfinite(a[i]) ? 1.0f : 0.0f;
      break;
    default:  // convert
      for (int64_t i = 0; i < m; ++i) d[i] = a[i] != 0.0f ? 1.0f : 0.0f;
      break;
  }
}

void ScalarBinary(FOp op, const float* a, const float* b, float* d, int64_t m) {
  switch (op) {
    case FOp::pow:
      for (int64_t i = 0; i < m; ++i) d[i] = std::pow(a[i], b[i]);
      break;
    case FOp::atan2:
      for (int64_t i = 0; i < m; ++i) d[i] = std::atan2(a[i], b[i]);
      break;
    default:  // rem
      for (int64_t i = 0; i < m; ++i) d[i] = std::fmod(a[i], b[i]);
      break;
  }
}

// The larger (smaller) of a and b as the reference's clamp picks: NaN wins, and of +0 and -0 the
// larger is +0.
float PickRef(float a, float b, bool larger) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  if (a == b) return std::signbit(a) == larger ? b : a;
  return (larger ? a > b : a < b) ? a : b;
}
float ClampRef(float lo, float x, float hi) { return PickRef(PickRef(x, lo, true), hi, false); }

int64_t padded(int64_t n) { return (n + kRegPad - 1) / kRegPad * kRegPad; }

// Fills d[n, pad) with zeros (finite junk for the ops over the padding).
void zero_pad(float* d, int64_t n) { std::fill(d + n, d + padded(n), 0.0f); }

// Where one instruction of a tile reads and writes.
struct InstrCtx {
  const FusedKernel& k;
  const Tile& t;
  const void* const* ins;
  const float** ptr;
  float* d;            // the destination register (or the output itself)
  int64_t len, first;  // elements (rows for a row register) and the first one's index
  int64_t total;       // elements (rows) of the whole kernel
};

// The loads and the expand: inputs into registers. False for any other op.
HWY_INLINE bool RunLoad(const FInstr& in, const InstrCtx& ctx) {
  const int64_t n = ctx.t.n, nr = ctx.t.nr, c = ctx.k.row_len, len = ctx.len, first = ctx.first;
  const Tile& t = ctx.t;
  float* d = ctx.d;
  const void* src = in.op <= FOp::load_cols ? ctx.ins[in.a] : nullptr;
  const float** ptr = ctx.ptr;
  switch (in.op) {
    case FOp::load:  // in place when the padded tile lies inside the input
      if (in.half) {
        Widen(static_cast<const uint16_t*>(src) + first, d, len);
        zero_pad(d, len);
      } else if (first + padded(len) <= ctx.total) {
        ptr[in.dst] = static_cast<const float*>(src) + first;
      } else {
        std::memcpy(d, static_cast<const float*>(src) + first, static_cast<size_t>(len) * 4);
        zero_pad(d, len);
      }
      return true;
    case FOp::load_bool: {
      const bool* p = static_cast<const bool*>(src) + first;
      for (int64_t i = 0; i < len; ++i) d[i] = p[i] ? 1.0f : 0.0f;
      zero_pad(d, len);
      return true;
    }
    case FOp::load_rows: {  // element i reads value (i0 + i) / len: runs of len
      const int64_t r0 = t.i0 / in.len;
      const float* p = static_cast<const float*>(src) + r0;
      const uint16_t* h = static_cast<const uint16_t*>(src) + r0;
      int64_t i = 0, run = std::min(n, in.len - t.i0 % in.len);
      for (;;) {  // (one division per tile, not per element)
        std::fill(d + i, d + i + run, in.half ? widen_bf16(*h++) : *p++);
        i += run;
        if (i >= n) break;
        run = std::min(n - i, in.len);
      }
      zero_pad(d, n);
      return true;
    }
    case FOp::load_cols: {  // element i reads value (i0 + i) % len: copied in runs
      const float* p = static_cast<const float*>(src);
      int64_t i = 0, j = t.i0 % in.len;
      while (i < n) {
        const int64_t run = std::min(n - i, in.len - j);
        if (in.half)
          Widen(static_cast<const uint16_t*>(src) + j, d + i, run);
        else
          std::memcpy(d + i, p + j, static_cast<size_t>(run) * 4);
        i += run;
        j = 0;
      }
      zero_pad(d, n);
      return true;
    }
    case FOp::expand: {
      const float* a = ptr[in.a];
      for (int64_t r = 0; r < nr; ++r) std::fill(d + r * c, d + (r + 1) * c, a[r]);
      zero_pad(d, n);
      return true;
    }
    default:
      return false;
  }
}

// A reduction over each row of the tile into a row register.
HWY_INLINE void RunRowReduce(const FInstr& in, const InstrCtx& ctx) {
  const int64_t nr = ctx.t.nr, c = ctx.k.row_len;
  const float* a = ctx.ptr[in.a];
  float* d = ctx.d;
  for (int64_t r = 0; r < nr; ++r) {
    const float* row = a + r * c;
    d[r] = in.op == FOp::reduce_sum   ? SumRow(row, c)
           : in.op == FOp::reduce_max ? ExtremeRow<true>(row, c)
                                      : ExtremeRow<false>(row, c);
  }
  zero_pad(d, nr);
}

// add/sub/mul/div with a row register operand, taken over its row.
HWY_INLINE void RunRowOperands(const FInstr& in, const InstrCtx& ctx) {
  const int64_t n = ctx.t.n, nr = ctx.t.nr, c = ctx.k.row_len;
  const float* a = ctx.ptr[in.a];
  const float* b = in.b >= 0 ? ctx.ptr[in.b] : nullptr;
  float* d = ctx.d;
  switch (in.op) {
    case FOp::add:
      RowMap2(
          a, in.a_row, b, in.b_row, d, nr, c, [](VF x, VF y) { return hn::Add(x, y); },
          [](float x, float y) { return x + y; });
      break;
    case FOp::sub:
      RowMap2(
          a, in.a_row, b, in.b_row, d, nr, c, [](VF x, VF y) { return hn::Sub(x, y); },
          [](float x, float y) { return x - y; });
      break;
    case FOp::mul:
      RowMap2(
          a, in.a_row, b, in.b_row, d, nr, c, [](VF x, VF y) { return hn::Mul(x, y); },
          [](float x, float y) { return x * y; });
      break;
    default:
      RowMap2(
          a, in.a_row, b, in.b_row, d, nr, c, [](VF x, VF y) { return hn::Div(x, y); },
          [](float x, float y) { return x / y; });
      break;
  }
  zero_pad(d, n);
}

// An elementwise op over the padded tile (m elements, a whole number of vectors).
HWY_INLINE void RunElementwise(const FInstr& in, const InstrCtx& ctx) {
  const float* a = ctx.ptr[in.a];
  const float* b = in.b >= 0 ? ctx.ptr[in.b] : nullptr;
  const float* cc = in.c >= 0 ? ctx.ptr[in.c] : nullptr;
  float* d = ctx.d;
  const int64_t m = padded(ctx.len);
  switch (in.op) {
    case FOp::add:
      Map2(a, b, d, m, [](DF, VF x, VF y) { return hn::Add(x, y); });
      break;
    case FOp::sub:
      Map2(a, b, d, m, [](DF, VF x, VF y) { return hn::Sub(x, y); });
      break;
    case FOp::mul:
      Map2(a, b, d, m, [](DF, VF x, VF y) { return hn::Mul(x, y); });
      break;
    case FOp::div:
      Map2(a, b, d, m, [](DF, VF x, VF y) { return hn::Div(x, y); });
      break;
    case FOp::max:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return MaxRef(df, x, y); });
      break;
    case FOp::min:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return MinRef(df, x, y); });
      break;
    case FOp::neg:
      Map1(a, d, m, [](DF, VF x) { return hn::Neg(x); });
      break;
    case FOp::abs:
      Map1(a, d, m, [](DF, VF x) { return hn::Abs(x); });
      break;
    case FOp::relu:  // x < 0 ? 0 : x (NaN and -0 kept)
      Map1(a, d, m, [](DF df, VF x) { return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(df)), x); });
      break;
    case FOp::exp:
      vexp(a, d, m);
      break;
    case FOp::tanh:
      vtanh(a, d, m);
      break;
    case FOp::logistic:
      vlogistic(a, d, m);
      break;
    case FOp::log:
      for (int64_t i = 0; i < m; ++i) d[i] = std::log(a[i]);
      break;
    case FOp::erf:
      for (int64_t i = 0; i < m; ++i) d[i] = std::erf(a[i]);
      break;
    case FOp::sin:
      vsin(a, d, m);
      break;
    case FOp::cos:
      vcos(a, d, m);
      break;
    case FOp::round_bf16:
      Map1(a, d, m, [](DF df, VF x) { return RoundBf16(df, x); });
      break;
    case FOp::sqrt:
      Map1(a, d, m, [](DF, VF x) { return hn::Sqrt(x); });
      break;
    case FOp::rsqrt:  // 1 / sqrt(x), both correctly rounded, as the reference
      Map1(a, d, m, [](DF df, VF x) { return hn::Div(hn::Set(df, 1.0f), hn::Sqrt(x)); });
      break;
    case FOp::lt:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return OneIf<FOp::lt>(df, x, y); });
      break;
    case FOp::le:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return OneIf<FOp::le>(df, x, y); });
      break;
    case FOp::gt:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return OneIf<FOp::gt>(df, x, y); });
      break;
    case FOp::ge:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return OneIf<FOp::ge>(df, x, y); });
      break;
    case FOp::eq:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return OneIf<FOp::eq>(df, x, y); });
      break;
    case FOp::ne:
      Map2(a, b, d, m, [](DF df, VF x, VF y) { return OneIf<FOp::ne>(df, x, y); });
      break;
    case FOp::sign:
    case FOp::floor:
    case FOp::ceil:
    case FOp::round:
    case FOp::log1p:
    case FOp::expm1:
    case FOp::exp2:
    case FOp::tan:
    case FOp::erf_inv:
    case FOp::is_finite:
    case FOp::convert:
      ScalarUnary(in.op, a, d, m);
      break;
    case FOp::pow:
    case FOp::atan2:
    case FOp::rem:
      ScalarBinary(in.op, a, b, d, m);
      break;
    case FOp::clamp:
      for (int64_t i = 0; i < m; ++i) d[i] = ClampRef(a[i], b[i], cc[i]);
      break;
    case FOp::select: {
      const DF df;
      const auto lanes = static_cast<int64_t>(hn::Lanes(df));
      for (int64_t i = 0; i < m; i += lanes) {
        const auto p = hn::Ne(hn::LoadU(df, a + i), hn::Zero(df));
        hn::StoreU(hn::IfThenElse(p, hn::LoadU(df, b + i), hn::LoadU(df, cc + i)), df, d + i);
      }
      break;
    }
    default:
      break;
  }
}

// The output registers into the outputs (bool ones as x != 0, bf16 ones narrowed; in-place ones
// are there already).
void StoreOutputs(const FusedKernel& k, void* const* outs, const float** ptr, const Tile& t) {
  const int64_t n = t.n, nr = t.nr;
  for (size_t o = 0; o < k.out_regs.size(); ++o) {
    const float* r = ptr[k.out_regs[o]];
    const bool row = k.out_row[o];
    const int64_t len = row ? nr : n, first = row ? t.r0 : t.i0;
    if (k.out_types[o].dtype == DType::boolean) {
      bool* d = static_cast<bool*>(outs[o]) + first;
      for (int64_t i = 0; i < len; ++i) d[i] = r[i] != 0.0f;
    } else if (k.out_types[o].dtype == DType::bf16) {
      uint16_t* d = static_cast<uint16_t*>(outs[o]) + first;
      for (int64_t i = 0; i < len; ++i) d[i] = round_bf16(r[i]);
    } else if (float* d = static_cast<float*>(outs[o]) + first; d != r) {
      std::memcpy(d, r, static_cast<size_t>(len) * 4);
    }
  }
}

void RunTile(const FusedKernel& k, const void* const* ins, void* const* outs, float* regs,
             const float** ptr, const Tile& t) {
  auto storage = [&](int32_t r) { return regs + static_cast<int64_t>(r) * k.reg_floats; };
  for (const FInstr& in : k.prologue) ptr[in.dst] = storage(in.dst);
  // an f32 output written in place: its tile, when that is a whole number of vectors (else the
  // padding would reach the next tile, another thread's)
  const bool in_place_out = t.n % kRegPad == 0;
  for (const FInstr& in : k.code) {
    float* d = storage(in.dst);
    if (const int32_t o = k.out_of_reg[in.dst]; o >= 0 && in_place_out && !t.donated[o])
      d = static_cast<float*>(outs[o]) + t.i0;
    ptr[in.dst] = d;
    const InstrCtx ctx{
        k, t, ins, ptr, d, in.row ? t.nr : t.n, in.row ? t.r0 : t.i0, in.row ? k.rows : k.numel};
    if (RunLoad(in, ctx)) continue;
    if (in.op == FOp::reduce_sum || in.op == FOp::reduce_max || in.op == FOp::reduce_min) {
      RunRowReduce(in, ctx);
    } else if (in.a_row || in.b_row) {
      RunRowOperands(in, ctx);
    } else {
      RunElementwise(in, ctx);
    }
  }
  StoreOutputs(k, outs, ptr, t);
}

}  // namespace lazax::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lazax::cpu {
HWY_EXPORT(RunTile);

void run_fused_prologue(const FusedKernel& k, const void* const* ins, float* regs) {
  for (const FInstr& in : k.prologue) {
    const void* src = ins[in.a];
    float v = 0;
    if (in.op == FOp::scalar_bool)
      v = *static_cast<const bool*>(src) ? 1.0f : 0.0f;
    else if (in.half)
      v = widen_bf16(*static_cast<const uint16_t*>(src));
    else
      v = *static_cast<const float*>(src);
    float* d = regs + static_cast<int64_t>(in.dst) * k.reg_floats;
    std::fill(d, d + k.reg_floats, v);
  }
}

void run_fused_tile(const FusedKernel& k, const void* const* ins, void* const* outs, float* regs,
                    const float** ptr, const Tile& t) {
  HWY_DYNAMIC_DISPATCH(RunTile)(k, ins, outs, regs, ptr, t);
}
}  // namespace lazax::cpu
#endif
