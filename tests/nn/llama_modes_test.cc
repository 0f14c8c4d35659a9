// The Llama decoder in its three layer modes, and scan_layers' gradients.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lazax/core/metrics.h"
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
  layers.reserve(3);
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

namespace lazax {
namespace {

using test::expect_close;

int64_t scan_saved_bytes() { return metrics::counter("ScanSavedBytes").get(); }

TEST(NnLlama, RematPoliciesOnTheScannedLayersGiveTheSameGradients) {
  manual_seed(13);
  nn::LlamaConfig c = test::small_llama();
  c.n_layers = 3;
  nn::Llama m(c);
  Tensor tok = randint(0, 256, {2, 9});
  std::vector<Tensor> params = m.parameters();
  auto step = [&](nn::LayerMode mode) {
    zero_grad(params);
    m.forward(tok, mode).backward();
    std::vector<Tensor> grads;
    grads.reserve(params.size());
    for (const Tensor& p : params) grads.push_back(p.grad());
    lazax::sync();
    return grads;
  };
  std::vector<Tensor> reference = step(nn::LayerMode::lazy);
  struct Case {
    const char* name;
    std::shared_ptr<const RematPolicy> policy;
  };
  auto make = [](RematPolicy p) { return std::make_shared<const RematPolicy>(std::move(p)); };
  std::vector<Case> cases = {
      {"default", nullptr},
      {"nothing_saveable", make(policies::nothing_saveable())},
      {"everything_saveable", make(policies::everything_saveable())},
      {"names", make(policies::save_only_these_names({"q", "k", "v", "mlp_hidden"}))},
      {"dots_saveable", make(policies::dots_saveable())},
      {"offload", make(policies::save_and_offload_only_these_names({"q"}, {"mlp_hidden"}))},
      {"memory_budget", make(policies::memory_budget(int64_t{24} << 10))}};
  std::map<std::string, int64_t> saved;
  auto named = m.named_parameters();
  for (const Case& k : cases) {
    m.set_remat(k.policy);
    const int64_t before = scan_saved_bytes();
    std::vector<Tensor> grads = step(nn::LayerMode::scan);
    saved[k.name] = scan_saved_bytes() - before;
    for (size_t j = 0; j < params.size(); ++j)
      expect_close(grads[j], reference[j], 1e-5, std::string(k.name) + " " + named[j].first);
  }
  // Each layer's stacked residuals: nothing_saveable keeps only what the layer started from
  // (and the small captured values); the names policy adds q, k, v and the MLP's hidden
  // activations; everything_saveable more again.
  const int64_t n_tokens = int64_t{2} * 8, act = n_tokens * c.dim * 4,
                hidden = n_tokens * c.hidden * 4;
  EXPECT_GE(saved["names"] - saved["nothing_saveable"], c.n_layers * (3 * act + hidden));
  EXPECT_GT(saved["everything_saveable"], saved["names"]);
  EXPECT_GT(saved["default"], saved["nothing_saveable"]);
}

TEST(NnLlama, ANamesPolicySavesTheBlocksNamedActivations) {
  manual_seed(14);
  nn::Llama m(test::small_llama());
  m.set_remat(std::make_shared<const RematPolicy>(
      policies::save_only_these_names({"q", "v", "mlp_hidden"})));
  std::shared_ptr<lazax::detail::PureEntry> e;
  {
    CallSiteCapture capture;  // (as saved_residuals traces: trace/call_site.h)
    e = m.block_entry(zeros({2, 5, 32}));
  }
  std::set<std::string> names;
  for (const std::string& line : lazax::detail::saved_residuals(*e, {})) {
    if (line.find(" from the argument ") != std::string::npos ||
        line.find(" from captured tensor ") != std::string::npos)
      continue;  // inputs the backward reads, not residuals
    size_t at = line.find(" named '");
    ASSERT_NE(at, std::string::npos) << line;
    // The profiler scope of the module that made the value, as JAX prints the function.
    const bool in_mlp = line.find("'mlp_hidden'") != std::string::npos;
    EXPECT_NE(line.find(in_mlp ? "(feed_forward)" : "(attention)"), std::string::npos) << line;
    // Where in the model it was made: llama.cc's line where lazax has a line table (the sanitizer
    // build), the nn function's name where it has none (Release).
    EXPECT_TRUE(line.find(" from llama.cc:") != std::string::npos ||
                line.find(" from lazax::nn::") != std::string::npos)
        << line;
    names.insert(line.substr(at + 8, line.find('\'', at + 8) - at - 8));
  }
  EXPECT_EQ(names, (std::set<std::string>{"q", "v", "mlp_hidden"}));
}

}  // namespace
}  // namespace lazax
