// The MLP of mlp_tape.cc with each layer an assume_pure function: traced once per input
// signature into a program, then recorded as one `call` node per use (and one backward call),
// instead of one node per op. The gradients are the same as the plain tape's; this program trains
// both from the same start and checks that their losses agree, and that the loss fell.
#include <cmath>
#include <cstdio>

#include "lazax/lazax.h"

using namespace lazax;

struct Layer {
  Tensor w, b;
  LAZAX_TREE_FIELDS(w, b)  // a tree: assume_pure passes both tensors as inputs
};

Layer make_layer(int64_t in, int64_t out, double scale) {
  Layer l{randn({in, out}) * scale, zeros({out})};
  l.w.requires_grad_();
  l.b.requires_grad_();
  return l;
}

// Trains for `steps` steps; `pure` chooses assume_pure layers or plain ops. Returns the losses.
std::vector<double> train(bool pure, int steps) {
  manual_seed(0);  // the same start for both
  Layer l1 = make_layer(1, 32, 1.0), l2 = make_layer(32, 1, 0.2);
  Tensor x = arange(-1.0, 1.0, 2.0 / 64).reshape({64, 1});
  Tensor y = sin(x * 3.0);

  // A pure function of its arguments: no reads of outside state that changes, no printing.
  auto tanh_layer = [](const Layer& l, const Tensor& h) { return tanh(matmul(h, l.w) + l.b); };
  auto linear_layer = [](const Layer& l, const Tensor& h) { return matmul(h, l.w) + l.b; };
  auto pure_tanh = assume_pure(tanh_layer);
  auto pure_linear = assume_pure(linear_layer);

  std::vector<double> losses;
  for (int step = 0; step < steps; ++step) {
    Tensor pred = pure ? pure_linear(l2, pure_tanh(l1, x)) : linear_layer(l2, tanh_layer(l1, x));
    Tensor loss = ((pred - y) * (pred - y)).mean();
    loss.backward();
    {
      NoGrad no_grad;
      for (Layer* l : {&l1, &l2}) {
        l->w.sub_(l->w.grad() * 0.1);
        l->b.sub_(l->b.grad() * 0.1);
      }
    }
    zero_grad({l1.w, l1.b, l2.w, l2.b});
    losses.push_back(loss.item());
  }
  if (pure)
    std::printf("programs traced: %zu + %zu\n", pure_tanh.cache_size(), pure_linear.cache_size());
  return losses;
}

int main() {
  const int steps = 200;
  std::vector<double> pure = train(true, steps), plain = train(false, steps);
  double worst = 0;
  for (int i = 0; i < steps; ++i) worst = std::fmax(worst, std::fabs(pure[i] - plain[i]));
  std::printf("loss: first %.5f, last %.5f (plain ops: %.5f); largest difference %.2g\n",
              pure.front(), pure.back(), plain.back(), worst);
  if (!(pure.back() < 0.2 * pure.front())) {
    std::fprintf(stderr, "mlp_assume_pure: the loss did not fall to a fifth\n");
    return 1;
  }
  if (worst > 1e-4) {
    std::fprintf(stderr, "mlp_assume_pure: assume_pure and plain ops disagree\n");
    return 1;
  }
  return 0;
}
