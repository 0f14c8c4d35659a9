// Helpers shared by the reference-interpreter kernels (elementwise.cc, layout.cc, reduce.cc,
// dot.cc, indexing.cc, random.cc, control.cc). This API is stable; add to it, don't change it.
//
//   Type traits      kIsHalf<T> (f16, bf16), kIsFloat<T> (f32 f64 f16 bf16), kIsInt<T> (not bool)
//   compute_t<T>     the type arithmetic on T is done in: float for f16/bf16, int32_t for bool,
//                    T otherwise
//   load(x)          storage -> compute_t (f16 -> float, bool -> 0/1)
//   store<T>(c)      compute_t<T> -> storage T (f16/bf16 round to nearest even; bool: c != 0)
//   convert_value<To>(from)   any storage type -> any storage type, the `convert` op's rules:
//                    float -> int: NaN -> 0, out of range clamps, else truncates toward zero;
//                    int -> int wraps modulo 2^bits; x -> bool: x != 0; rounding is correct
//                    (single rounding) for every pair, including f64/i64 -> f16/bf16
//   from_double<T>(d) = convert_value<T>(d)
//   wrap_add/wrap_sub/wrap_mul/wrap_neg   two's-complement wrapping integer arithmetic (no UB);
//                    plain arithmetic for floats
//   lowest_value<T>() / highest_value<T>()   in compute_t<T>: -inf/+inf for floats, min/max for
//                    ints, 0/1 for bool (the identities of max/min)
//   for_each_index(shape, f)   calls f(const Dims& idx, int64_t linear) in row-major order; once
//                    with an empty idx for rank 0, never when a dimension is 0
//   linear_offset(idx, strides)
//   read_index(lit, i) element i of an integer or bool literal as int64_t (DTypeError on floats)
//   scalar_index(lit)  = read_index(lit, 0) of a scalar
//   copy_element(dst, di, src, si)   copies one element's bytes (same dtype)
//   output(node, i)    zero-filled Literal of node.outputs[i]
//   require(ok, node, what)   throws VerifyError "[interpret] <op>: what" when !ok (malformed
//                    programs must throw, never read out of bounds)
#pragma once
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "lazax/core/dtype.h"
#include "lazax/core/error.h"
#include "lazax/ir/function.h"

namespace lazax::interp {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

template <class T>
inline constexpr bool kIsHalf = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;
template <class T>
inline constexpr bool kIsFloat = kIsHalf<T> || std::is_floating_point_v<T>;
template <class T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T>
struct ComputeOf {
  using type = T;
};
template <>
struct ComputeOf<f16> {
  using type = float;
};
template <>
struct ComputeOf<bf16> {
  using type = float;
};
template <>
struct ComputeOf<bool> {
  using type = int32_t;
};
template <class T>
using compute_t = typename ComputeOf<T>::type;

template <class T>
compute_t<T> load(const T& x) {
  if constexpr (kIsHalf<T>)
    return static_cast<float>(x);
  else if constexpr (std::is_same_v<T, bool>)
    return x ? 1 : 0;
  else
    return x;
}

template <class T>
T store(compute_t<T> c) {
  if constexpr (kIsHalf<T>)
    return T(c);
  else if constexpr (std::is_same_v<T, bool>)
    return c != 0;
  else
    return c;
}

// ---- conversions ----

// f64 -> f32 rounded to nearest even, without the (formally undefined) out-of-range cast.
inline float double_to_float(double d) {
  if (std::isfinite(d) && std::fabs(d) > static_cast<double>(FLT_MAX)) {
    // Halfway between FLT_MAX and 2^128 is 2^128 - 2^103; ties go to the even 2^128 (inf).
    double half_way = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
    float big = std::fabs(d) >= half_way ? std::numeric_limits<float>::infinity() : FLT_MAX;
    return d < 0 ? -big : big;
  }
  return static_cast<float>(d);
}

inline float set_lowest_bit(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  b |= 1u;
  std::memcpy(&f, &b, 4);
  return f;
}

// f64 -> f32 rounded to odd: converting that to f16/bf16 (round to nearest even) then gives
// the correctly rounded f64 -> f16/bf16 result (no double-rounding error).
inline float double_to_float_round_odd(double d) {
  if (std::isnan(d) || std::isinf(d)) return static_cast<float>(d);
  if (std::fabs(d) > static_cast<double>(FLT_MAX)) return d < 0 ? -FLT_MAX : FLT_MAX;  // odd
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return set_lowest_bit(f);
}

// i64 -> f32 rounded to odd (see above).
inline float int_to_float_round_odd(int64_t v) {
  uint64_t u = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int shift = static_cast<int>(std::bit_width(u)) - 24;
  if (shift > 0) {
    uint64_t low = u & ((uint64_t{1} << shift) - 1);
    u >>= shift;
    if (low) u |= 1u;
  }
  float f = std::ldexp(static_cast<float>(u), shift > 0 ? shift : 0);
  return v < 0 ? -f : f;
}

// Float -> integer: NaN -> 0, out of range clamps to the integer range, otherwise truncates
// toward zero. (C++ leaves the out-of-range cast undefined; lax leaves it unspecified.)
template <class To>
To float_to_int(double v) {
  using L = std::numeric_limits<To>;
  if (std::isnan(v)) return 0;
  if (v >= static_cast<double>(L::max()) + 1.0) return L::max();  // exact: max + 1 = 2^digits
  if (v <= static_cast<double>(L::min())) return L::min();
  return static_cast<To>(v);
}

template <class To, class From>
To convert_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return load(v) != 0;  // NaN -> true
  } else if constexpr (std::is_same_v<From, bool>) {
    return store<To>(static_cast<compute_t<To>>(v ? 1 : 0));
  } else if constexpr (kIsFloat<From> && kIsInt<To>) {
    return float_to_int<To>(static_cast<double>(load(v)));
  } else if constexpr (kIsFloat<From> && kIsFloat<To>) {
    if constexpr (kIsHalf<To> && std::is_same_v<From, double>)
      return To(double_to_float_round_odd(v));
    else if constexpr (kIsHalf<To>)
      return To(static_cast<float>(v));  // f32/f16/bf16 -> float exact
    else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, double>)
      return double_to_float(v);
    else
      return static_cast<To>(load(v));  // widening: exact
  } else if constexpr (kIsInt<From> && kIsInt<To>) {
    return static_cast<To>(v);  // modulo 2^bits (C++20)
  } else {                      // integer -> float
    static_assert(kIsInt<From> && kIsFloat<To>);
    if constexpr (kIsHalf<To>)
      return To(int_to_float_round_odd(static_cast<int64_t>(v)));
    else
      return static_cast<To>(v);
  }
}

template <class T>
T from_double(double d) {
  return convert_value<T>(d);
}

// ---- arithmetic ----

template <class C>
C wrap_add(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class C>
C wrap_sub(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <class C>
C wrap_mul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}
template <class C>
C wrap_neg(C a) {
  if constexpr (std::is_integral_v<C>)
    return wrap_sub(C{0}, a);
  else
    return -a;  // not 0 - a: -(+0) is -0
}

template <class T>
compute_t<T> lowest_value() {
  if constexpr (kIsFloat<T>)
    return -std::numeric_limits<compute_t<T>>::infinity();
  else if constexpr (std::is_same_v<T, bool>)
    return 0;
  else
    return std::numeric_limits<T>::lowest();
}
template <class T>
compute_t<T> highest_value() {
  if constexpr (kIsFloat<T>)
    return std::numeric_limits<compute_t<T>>::infinity();
  else if constexpr (std::is_same_v<T, bool>)
    return 1;
  else
    return std::numeric_limits<T>::max();
}

// ---- indexing ----

template <class F>
void for_each_index(const Shape& shape, F&& f) {
  int64_t n = shape.numel();
  if (n <= 0) return;
  Dims idx(shape.rank(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(static_cast<const Dims&>(idx), i);
    for (size_t d = shape.rank(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

inline int64_t linear_offset(const Dims& idx, const Dims& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
  return off;
}

inline int64_t read_index(const Literal& lit, int64_t i) {
  return dispatch_dtype(lit.dtype(), [&]<class T>() -> int64_t {
    if constexpr (kIsFloat<T>) {
      throw DTypeError("[interpret] an index must be an integer, got " + lit.type.str());
    } else {
      return static_cast<int64_t>(lit.data<T>()[i]);
    }
  });
}
inline int64_t scalar_index(const Literal& lit) { return read_index(lit, 0); }

inline void copy_element(Literal& dst, int64_t di, const Literal& src, int64_t si) {
  size_t s = dtype_size(dst.dtype());
  std::memcpy(static_cast<char*>(dst.buffer.data()) + static_cast<size_t>(di) * s,
              static_cast<const char*>(src.buffer.data()) + static_cast<size_t>(si) * s, s);
}

inline Literal output(const Node& node, size_t i = 0) { return Literal::zeros(node.outputs.at(i)); }

inline void require(bool ok, const Node& node, const std::string& what) {
  if (!ok) throw VerifyError("[interpret] " + std::string(op_name(node.op)) + ": " + what);
}
// The same with a message built only on failure (the checks run for every node executed).
template <class What>
  requires std::is_invocable_r_v<std::string, What>
inline void require(bool ok, const Node& node, What what) {
  if (!ok) require(false, node, what());
}

}  // namespace lazax::interp
