// Staged control flow under grad: scan runs a recurrence over the rows of xs as one `scan` node
// (its body traced once), cond picks a branch from a tensor's value at run time, and grad
// differentiates through both. The program compares the gradient with a finite difference and
// with the same function written as a C++ loop and if.
#include <cmath>
#include <cstdio>
#include <tuple>
#include <utility>

#include "lazax/lazax.h"

using namespace lazax;

// h <- tanh(h * a + x) for each row x of xs, from h = 0; then sum(h^2) if sum(h) > 0, else
// -sum(h). a is [4], xs is [6, 4].
Tensor staged(const Tensor& a, const Tensor& xs) {
  auto [h, ys] = scan(
      [&](const Tensor& c, const Tensor& x) {
        // a is captured: it becomes an operand of the scan
        return std::make_pair(tanh(c * a + x), std::tuple<>{});
      },
      zeros_like(a), xs);
  return cond(
      h.sum() > 0.0, [](const Tensor& v) { return (v * v).sum(); },
      [](const Tensor& v) { return -v.sum(); }, h);
}

// The same, unrolled by C++: six steps on the tape and a branch on a value read back.
Tensor unrolled(const Tensor& a, const Tensor& xs) {
  Tensor h = zeros_like(a);
  for (int64_t i = 0; i < xs.shape()[0]; ++i) h = tanh(h * a + xs[i]);
  return h.sum().item() > 0 ? (h * h).sum() : -h.sum();
}

int main() {
  manual_seed(2);
  Tensor a = randn({4}, DType::f64);
  Tensor xs = randn({6, 4}, DType::f64);

  Tensor g = grad(staged)(a, xs);  // d staged / d a
  Tensor g_unrolled = grad(unrolled)(a, xs);

  // A central difference along a random direction v: (f(a + eps v) - f(a - eps v)) / 2 eps
  // against <grad, v>.
  Tensor v = randn({4}, DType::f64);
  const double eps = 1e-6;
  double numeric = (staged(a + v * eps, xs).item() - staged(a - v * eps, xs).item()) / (2 * eps);
  double analytic = (g * v).sum().item();
  double difference = (g - g_unrolled).abs().amax().item();
  std::printf("value %.6f; <grad, v>: %.8f, finite difference %.8f; vs unrolled: %.2g\n",
              staged(a, xs).item(), analytic, numeric, difference);
  if (std::fabs(analytic - numeric) > 1e-6 * std::fmax(1.0, std::fabs(numeric))) {
    std::fprintf(stderr, "control_flow_grad: the gradient disagrees with the finite difference\n");
    return 1;
  }
  if (difference > 1e-10) {
    std::fprintf(stderr, "control_flow_grad: scan/cond and the unrolled loop disagree\n");
    return 1;
  }
  return 0;
}
