// DP-SGD style training with vmap: the gradient of each example (vmap of grad over the batch),
// each clipped to an L2 norm of at most C, summed, noised and averaged. The program checks the
// per-example gradients against one grad per example, that every clipped norm is at most C, and
// that the loss goes down.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lazax/lazax.h"

using namespace lazax;

struct Params {
  Tensor w1, b1, w2;
  LAZAX_TREE_FIELDS(w1, b1, w2)
};

// Squared error of one example (x: [4], y: [1]).
Tensor loss(const Params& p, const Tensor& x, const Tensor& y) {
  Tensor d = matmul(tanh(matmul(x, p.w1) + p.b1), p.w2) - y;
  return (d * d).sum();
}

// The per-example L2 norm of a tree of stacked gradients: [batch].
Tensor norms(const Params& g) {
  Tensor s = (g.w1 * g.w1).sum({1, 2}) + (g.b1 * g.b1).sum({1}) + (g.w2 * g.w2).sum({1, 2});
  return s.sqrt();
}

int main() {
  manual_seed(3);
  const int64_t batch = 16;
  const double clip = 1.0, noise = 0.01, lr = 0.05;
  Tensor x = randn({batch, 4});
  Tensor y = (x.sum({1}, true)).sin();
  Params p{randn({4, 16}) * 0.5, zeros({16}), randn({16, 1}) * 0.3};
  auto per_example = vmap(grad(loss), {.in_axes = {std::nullopt, 0, 0}});

  // The per-example gradients equal one grad per example.
  Params g = per_example(p, x, y);
  double worst = 0;
  for (int64_t i = 0; i < batch; ++i) {
    Params one = grad(loss)(p, x[i], y[i]);
    worst = std::max(worst, (g.w1[i] - one.w1).abs().max().item());
  }
  std::printf("largest difference from the loop of grads: %.3g\n", worst);
  if (worst > 1e-5) return 1;

  double first = 0, last = 0;
  for (int step = 0; step < 50; ++step) {
    Params gs = per_example(p, x, y);
    // Scale each example's gradient so that its norm is at most `clip`.
    Tensor scale = clamp(clip / (norms(gs) + 1e-12), std::nullopt, 1.0);
    Tensor s3 = scale.reshape({batch, 1, 1}), s2 = scale.reshape({batch, 1});
    Params clipped{gs.w1 * s3, gs.b1 * s2, gs.w2 * s3};
    double largest = norms(clipped).max().item();
    if (largest > clip + 1e-5) {
      std::printf("a clipped norm is %.6f > %.1f\n", largest, clip);
      return 1;
    }
    auto noisy_mean = [&](const Tensor& t) {
      return (t.sum({0}) + randn(t[0].sizes()) * (noise * clip)) / static_cast<double>(batch);
    };
    p = {p.w1 - lr * noisy_mean(clipped.w1), p.b1 - lr * noisy_mean(clipped.b1),
         p.w2 - lr * noisy_mean(clipped.w2)};
    double l = vmap(loss, {.in_axes = {std::nullopt, 0, 0}})(p, x, y).mean().item();
    if (step == 0) first = l;
    last = l;
  }
  std::printf("mean loss: step 1 %.4f, step 50 %.4f\n", first, last);
  return last < first ? 0 : 1;
}
