// Scalar functions of the reference kernels that <cmath> does not have, shared with the backends
// that must give the same bits (the cpu backend's fused kernels).
#pragma once

namespace lazax::interp {

// erf^-1(y) in double (the erf_inv primitive computes it so for every float dtype): odd; +-1 give
// +-inf, |y| > 1 and NaN give NaN, +-0 keep their sign.
double erf_inv_double(double y);

}  // namespace lazax::interp
