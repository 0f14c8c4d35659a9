// JAX style: the loss is a function of a struct of parameters, value_and_grad(loss) returns the
// loss and a struct of the same type holding the gradients, and the update makes new parameters
// (no requires_grad_, no backward(), no in-place ops). The struct lists its tensors once with
// LAZAX_TREE_FIELDS. The program checks one gradient against a finite difference, then trains.
#include <cmath>
#include <cstdio>

#include "lazax/lazax.h"

using namespace lazax;

struct Params {
  Tensor w1, b1, w2, b2;
  LAZAX_TREE_FIELDS(w1, b1, w2, b2)
};

// Mean squared error of a two-layer MLP. f64, so that a finite difference is accurate.
Tensor loss_fn(const Params& p, const Tensor& x, const Tensor& y) {
  Tensor pred = matmul(tanh(matmul(x, p.w1) + p.b1), p.w2) + p.b2;
  return ((pred - y) * (pred - y)).mean();
}

int main() {
  manual_seed(1);
  const DType f64 = DType::f64;
  Tensor x = arange(-1.0, 1.0, 2.0 / 32, f64).reshape({32, 1});
  Tensor y = x * x - 0.5;
  Params p{randn({1, 16}, f64), zeros({16}, f64), randn({16, 1}, f64) * 0.3, zeros({1}, f64)};

  // d loss / d p, for the first argument only (x and y are data).
  auto loss_and_grad = value_and_grad(loss_fn);

  // Check d loss / d w1[0, 3] against a central difference.
  auto [loss0, g] = loss_and_grad(p, x, y);
  const double eps = 1e-6;
  std::vector<double> bump(16, 0.0);
  bump[3] = eps;
  Tensor e = from_vector<double>(bump, {1, 16});
  Params up = p, down = p;
  up.w1 = p.w1 + e;
  down.w1 = p.w1 - e;
  double numeric = (loss_fn(up, x, y).item() - loss_fn(down, x, y).item()) / (2 * eps);
  double analytic = g.w1.to_vector<double>()[3];
  std::printf("d loss / d w1[0,3]: value_and_grad %.8f, finite difference %.8f\n", analytic,
              numeric);
  if (std::fabs(analytic - numeric) > 1e-6 * std::fmax(1.0, std::fabs(numeric))) {
    std::fprintf(stderr,
                 "value_and_grad_tree: the gradient disagrees with the finite difference\n");
    return 1;
  }

  // Plain gradient descent: new parameters from old ones and their gradients.
  double first = loss0.item(), last = first;
  for (int step = 0; step < 200; ++step) {
    auto [loss, grads] = loss_and_grad(p, x, y);
    const double lr = 0.2;
    p = Params{p.w1 - grads.w1 * lr, p.b1 - grads.b1 * lr, p.w2 - grads.w2 * lr,
               p.b2 - grads.b2 * lr};
    last = loss.item();
  }
  std::printf("loss: first %.5f, last %.5f\n", first, last);
  if (!(last < 0.2 * first)) {
    std::fprintf(stderr, "value_and_grad_tree: the loss did not fall to a fifth\n");
    return 1;
  }
  return 0;
}
