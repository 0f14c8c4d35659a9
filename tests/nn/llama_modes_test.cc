// The Llama decoder in its three layer modes, and scan_layers' gradients.
#include <gtest/gtest.h>

#include <vector>

#include "nn_test_util.h"

namespace lazax {
namespace {

using test::expect_close;

Tensor tokens(int64_t b, int64_t t) { return randint(0, 256, {b, t}); }

TEST(NnLlama, ModesGiveTheSameLossAndGradients) {
  manual_seed(11);
  nn::Llama m(test::small_llama());
  Tensor tok = tokens(2, 9);
  std::vector<Tensor> params = m.parameters();
  Tensor losses[3];
  std::vector<Tensor> grads[3];
  nn::LayerMode modes[3] = {nn::LayerMode::lazy, nn::LayerMode::assume_pure, nn::LayerMode::scan};
  for (int i = 0; i < 3; ++i) {
    zero_grad(params);
    losses[i] = m.forward(tok, modes[i]);
    losses[i].backward();
    for (const Tensor& p : params) grads[i].push_back(p.grad());
  }
  lazax::sync();
  EXPECT_EQ(losses[0].dim(), 0);
  EXPECT_NEAR(losses[0].item(), 5.9, 0.6);  // about log(256) = 5.55 at initialization
  for (int i = 1; i < 3; ++i) {
    expect_close(losses[i], losses[0], 1e-5, "loss " + nn::to_string(modes[i]));
    auto named = m.named_parameters();
    for (size_t j = 0; j < params.size(); ++j)
      expect_close(grads[i][j], grads[0][j], 1e-5, nn::to_string(modes[i]) + " " + named[j].first);
  }
  // All layers share one traced block, and a second step traces nothing new.
  EXPECT_EQ(m.traced_block_signatures(), 1u);
  zero_grad(params);
  m.forward(tokens(2, 9), nn::LayerMode::assume_pure).backward();
  EXPECT_EQ(m.traced_block_signatures(), 1u);
}

TEST(NnLlama, ScanLayersGradientsEqualTheUnrolledLoop) {
  manual_seed(12);
  nn::LlamaConfig c = test::small_llama();
  std::vector<nn::TransformerBlock> layers;
  for (int i = 0; i < 3; ++i) layers.emplace_back(c);
  Tensor h = randn({2, 5, 32});
  auto loss_scan = [](const std::vector<nn::TransformerBlock>& ls, const Tensor& h) {
    return sum(square(nn::scan_layers(ls, h)));
  };
  auto loss_loop = [](const std::vector<nn::TransformerBlock>& ls, const Tensor& h) {
    Tensor x = h;
    for (const auto& l : ls) x = l.forward(x);
    return sum(square(x));
  };
  auto [v_scan, g_scan] = value_and_grad(loss_scan, argnums<0, 1>)(layers, h);
  auto [v_loop, g_loop] = value_and_grad(loss_loop, argnums<0, 1>)(layers, h);
  expect_close(v_scan, v_loop, 1e-5, "value");
  const auto& gl_scan = std::get<0>(g_scan);
  const auto& gl_loop = std::get<0>(g_loop);
  ASSERT_EQ(gl_scan.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    auto a = gl_scan[i].named_parameters(), b = gl_loop[i].named_parameters();
    for (size_t j = 0; j < a.size(); ++j)
      expect_close(a[j].second, b[j].second, 1e-5, "layer " + std::to_string(i) + " " + a[j].first);
  }
  expect_close(std::get<1>(g_scan), std::get<1>(g_loop), 1e-5, "grad h");
  // The tape (backward()) reaches each layer's own parameters through the stack too.
  loss_scan(layers, h).backward();
  expect_close(layers[2].feed_forward.w2.weight.grad(), gl_loop[2].feed_forward.w2.weight, 1e-5,
               "tape grad");
}

TEST(NnLlama, ScanLayersRejectsLayersOfOtherShapes) {
  nn::LlamaConfig c = test::small_llama();
  nn::LlamaConfig wide = c;
  wide.hidden = 64;
  std::vector<nn::TransformerBlock> layers{nn::TransformerBlock(c), nn::TransformerBlock(wide)};
  EXPECT_THROW(nn::scan_layers(layers, randn({1, 2, 32})), ShapeError);
  EXPECT_EQ(nn::scan_layers(std::vector<nn::TransformerBlock>{}, ones({1})).numel(), 1);
}

TEST(NnLlama, ToF64GivesTheSameLoss) {
  manual_seed(14);
  nn::Llama m(test::small_llama());
  nn::Llama m64 = m;  // to() rebinds the copy's handles only
  m64.to(DType::f64);
  Tensor tok = tokens(2, 9);
  Tensor l32 = m.forward(tok), l64 = m64.forward(tok, nn::LayerMode::scan);
  EXPECT_EQ(m.norm.weight.dtype(), DType::f32);
  EXPECT_EQ(l64.dtype(), DType::f64);
  expect_close(l64, l32, 1e-5, "f64 loss");
}

TEST(NnLlama, BadTokensAreErrors) {
  manual_seed(13);
  nn::Llama m(test::small_llama());
  EXPECT_THROW(m.forward(ones({2, 9})), ShapeError);           // floating
  EXPECT_THROW(m.forward(tokens(2, 1)), ShapeError);           // no target
  EXPECT_THROW(m.forward(randint(0, 256, {18})), ShapeError);  // rank 1
  EXPECT_EQ(m.logits(tokens(2, 4)).sizes(), (std::vector<int64_t>{2, 4, 256}));
}

}  // namespace
}  // namespace lazax
