// Numerical gradient checks with JAX's check_grads semantics: one random direction per check.
//   forward mode: the JVP equals a central difference (computed in float64);
//   reverse mode: <v, J^T u> equals <J v, u> for random v and u (J v by central difference);
//   order > 1 checks the first-order JVP and VJP functions again, recursively.
// Default tolerances (atol = rtol) by dtype, as jax/_src/public_test_util.py: f64 1e-5,
// f32 2e-3, f16 1e-2, bf16 1e-1. A mismatch throws ValueError:
//   "[check_grads] reverse mode mismatch for VJP of JVP: got X, expected Y ...".
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

enum class Modes : uint8_t { fwd = 1, rev = 2 };
constexpr Modes operator|(Modes a, Modes b) {
  return static_cast<Modes>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}
constexpr bool has_mode(Modes set, Modes m) {
  return (static_cast<uint8_t>(set) & static_cast<uint8_t>(m)) != 0;
}

using FlatFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// f takes and returns flat lists of tensors. Integer and bool arguments are held fixed (zero
// tangents); the numerical side evaluates f on float64 copies of the floating arguments (f must
// accept them, e.g. by building its constants from its inputs' dtypes) and falls back to the
// arguments' own dtypes when f rejects float64 with a DTypeError. eps is the finite-difference
// step (JAX's default 1e-4).
void check_grads(const FlatFn& f, const std::vector<Tensor>& args, int order,
                 Modes modes = Modes::fwd | Modes::rev, double eps = 1e-4,
                 std::optional<double> atol = std::nullopt,
                 std::optional<double> rtol = std::nullopt);

}  // namespace lazax
