// Vectorized f32 math for the fused kernels (fused.cc): Highway's contrib math with dynamic
// dispatch (the widest SIMD the machine has: AVX2, AVX-512, ...), with the IEEE special cases
// that libm gives and the contrib functions do not (NaN kept, exp overflowing to +inf).
// Accuracy: exp 1 ulp, tanh 4 ulp, sin and cos 3 ulp (Highway's documented bounds), against libm's
// correctly rounded-or-nearly results on the reference backend.
#pragma once
#include <cstdint>

namespace lazax::cpu {

// d[i] = f(a[i]) for i < n (d may equal a).
void vexp(const float* a, float* d, int64_t n);
void vtanh(const float* a, float* d, int64_t n);
void vlogistic(const float* a, float* d, int64_t n);  // 1 / (1 + exp(-a)), stable both sides
// 3 ulp for |a| <= 39000 (Highway's range); libm's sinf / cosf for the lanes beyond (and inf, NaN).
void vsin(const float* a, float* d, int64_t n);
void vcos(const float* a, float* d, int64_t n);

}  // namespace lazax::cpu
