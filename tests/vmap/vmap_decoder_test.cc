// Per-example gradients of the decoder's loss: vmap(grad(loss)) over a batch of 8 token
// sequences equals 8 single-example gradients within 1e-5.
#include <gtest/gtest.h>

#include <cmath>

#include "lazax/lazax.h"

namespace lazax {
namespace {

TEST(VmapDecoder, PerExampleGradientsEqualTheLoopOfEight) {
  manual_seed(11);
  nn::LlamaConfig c;
  c.vocab = 32;
  c.dim = 16;
  c.n_layers = 2;
  c.n_heads = 2;
  c.hidden = 32;
  c.seq = 6;
  c.batch = 8;
  nn::Llama model(c);
  Tensor tokens = randint(0, c.vocab, {c.batch, c.seq + 1});
  auto loss = [](const nn::Llama& m, const Tensor& toks) { return m.forward(toks.unsqueeze(0)); };
  nn::Llama batched = vmap(grad(loss), {.in_axes = {std::nullopt, 0}})(model, tokens);
  std::vector<Tensor> got = batched.parameters();
  for (int64_t i = 0; i < c.batch; ++i) {
    std::vector<Tensor> want = grad(loss)(model, tokens[i]).parameters();
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      std::vector<float> g = got[k][i].to_vector<float>(), w = want[k].to_vector<float>();
      ASSERT_EQ(g.size(), w.size());
      for (size_t j = 0; j < g.size(); ++j)
        ASSERT_NEAR(g[j], w[j], 1e-5 * (1 + std::abs(w[j]))) << "example " << i << " param " << k;
    }
  }
}

}  // namespace
}  // namespace lazax
