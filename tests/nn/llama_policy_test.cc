// The Llama decoder under a bf16 compute policy with its norms kept in f32 (docs/PRECISION.md's
// recipe): an f32 loss near the f32 model's, f32 master weights and f32 gradients near the f32
// model's, in every layer mode.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nn_test_util.h"

namespace lazax {
namespace {

using test::expect_close;
using test::values;

TEST(NnPolicy, LlamaInBf16WithF32Norms) {
  manual_seed(31);
  nn::Llama f32(test::small_llama());
  Tensor tok = randint(0, 256, {2, 9});
  std::vector<Tensor> params = f32.parameters();
  zero_grad(params);
  Tensor loss32 = f32(tok);
  loss32.backward();
  std::vector<Tensor> g32;
  for (const Tensor& p : params) g32.push_back(p.grad());

  nn::Llama mixed = f32;  // the same parameter tensors
  mixed.set_policy(Policy::parse("params=f32,compute=bf16,output=f32"));
  nn::set_policy<nn::RMSNorm>(mixed, Policy::parse("params=f32,compute=f32,output=bf16"));
  auto named = mixed.named_parameters();
  Tensor first;
  for (nn::LayerMode mode :
       {nn::LayerMode::lazy, nn::LayerMode::assume_pure, nn::LayerMode::scan}) {
    const std::string m = nn::to_string(mode);
    zero_grad(params);
    Tensor loss = mixed(tok, mode);
    loss.backward();
    EXPECT_EQ(loss.dtype(), DType::f32) << m;
    EXPECT_NE(values(loss), values(loss32)) << m << ": the loss should come from bf16 compute";
    expect_close(loss, loss32, 2e-3, m + " loss");
    if (!first.defined()) first = loss;
    expect_close(loss, first, 1e-3, m + " loss vs lazy");
    for (size_t j = 0; j < params.size(); ++j) {
      EXPECT_EQ(named[j].second.dtype(), DType::f32) << named[j].first;
      ASSERT_EQ(params[j].grad().dtype(), DType::f32) << m << " " << named[j].first;
      expect_close(params[j].grad(), g32[j], 4e-2, m + " gradient " + named[j].first, 1e-5);
    }
  }
  EXPECT_EQ(mixed.traced_block_signatures(), 1u);
  // logits (for sampling) runs under the policy too.
  Tensor window = tok.slice(1, 0, 8);
  Tensor lg = mixed.logits(window), lg32 = f32.logits(window);
  EXPECT_EQ(lg.dtype(), DType::f32);
  EXPECT_NE(values(lg), values(lg32));
  expect_close(lg, lg32, 2e-2, "logits");
}

}  // namespace
}  // namespace lazax
