// A two-layer MLP fitted to y = sin(3x) the PyTorch way: Tensor ops record a lazy graph, backward()
// fills each parameter's grad(), and a plain SGD update runs under NoGrad. Reading the loss
// (item()) runs the step: the first step compiles forward, backward and update into one program,
// every later step replays it from the cache.
#include <cstdio>

#include "lazax/lazax.h"

using namespace lazax;

int main() {
  manual_seed(0);
  // 64 points in [-1, 1), shape [64, 1].
  Tensor x = arange(-1.0, 1.0, 2.0 / 64).reshape({64, 1});
  Tensor y = sin(x * 3.0);

  // Parameters: leaves that require grad.
  Tensor w1 = (randn({1, 32}) * 1.0).requires_grad_();
  Tensor b1 = zeros({32}).requires_grad_();
  Tensor w2 = (randn({32, 1}) * 0.2).requires_grad_();
  Tensor b2 = zeros({1}).requires_grad_();
  std::vector<Tensor> params = {w1, b1, w2, b2};

  double first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    Tensor h = tanh(matmul(x, w1) + b1);
    Tensor pred = matmul(h, w2) + b2;
    Tensor loss = ((pred - y) * (pred - y)).mean();
    loss.backward();
    {
      NoGrad no_grad;  // the update is not part of the next step's graph
      for (Tensor& p : params) p.sub_(p.grad() * 0.1);
    }
    zero_grad(params);
    last = loss.item();  // runs the step
    if (step == 0) first = last;
    if (step % 100 == 0) std::printf("step %3d  loss %.5f\n", step, last);
  }
  std::printf("final     loss %.5f (first %.5f)\n", last, first);
  if (!(last < 0.2 * first)) {
    std::fprintf(stderr, "mlp_tape: the loss did not fall to a fifth\n");
    return 1;
  }
  return 0;
}
