// Rematerialization: checkpoint(f, policy) is an assume_pure function whose backward keeps only
// what the policy saves and recomputes the rest. checkpoint_name names a value for the policies
// that go by name; print_saved_residuals lists what the backward keeps and where each value was
// made (this program is built with -g, so the lines are its own: examples/CMakeLists.txt).
// The gradients are the same under every policy; this program checks that.
#include <cmath>
#include <cstdio>
#include <string>

#include "lazax/lazax.h"

using namespace lazax;

struct Block {
  Tensor w1, w2;
  LAZAX_TREE_FIELDS(w1, w2)
};

// One residual MLP block with its hidden activation named "hidden".
Tensor block(const Block& p, const Tensor& x) {
  Tensor hidden = checkpoint_name(tanh(matmul(x, p.w1)), "hidden");
  return x + matmul(hidden, p.w2);
}

int main() {
  manual_seed(0);
  Block p{randn({16, 64}) * 0.2, randn({64, 16}) * 0.2};
  Tensor x = randn({8, 16});
  auto loss_of = [](auto&& f, const Block& p, const Tensor& x) {
    Tensor y = f(p, f(p, x));  // two applications of the block
    return (y * y).mean();
  };
  auto plain = grad([&](const Block& b) { return loss_of(block, b, x); })(p);

  bool ok = true;
  for (const RematPolicy& policy :
       {policies::nothing_saveable(), policies::save_only_these_names({"hidden"}),
        policies::dots_saveable()}) {
    auto f = checkpoint(block, policy);
    std::printf("%s keeps:\n", policy.name.c_str());
    print_saved_residuals(f, p, x);
    auto g = grad([&](const Block& b) { return loss_of(f, b, x); })(p);
    const double diff =
        std::fmax((g.w1 - plain.w1).abs().max().item(), (g.w2 - plain.w2).abs().max().item());
    std::printf("  largest gradient difference from no remat: %.2g\n", diff);
    ok = ok && diff < 1e-5;
  }
  // The named value's line is this file's (built with -g).
  auto f = checkpoint(block, policies::save_only_these_names({"hidden"}));
  bool named_here = false;
  for (const std::string& line : saved_residuals(f, p, x))
    named_here = named_here || line.find("named 'hidden' from remat.cc:") != std::string::npos;
  if (!ok || !named_here) {
    std::fprintf(stderr, "remat: %s\n",
                 !ok ? "a policy changed the gradients" : "no line named where 'hidden' was made");
    return 1;
  }
  return 0;
}
