// Optimizers: one program for every step (a learning rate that changes does not recompile), the
// step recorded lazily without graph breaks, PyTorch's checks of options and parameters, and a
// strict state dict that continues a run exactly. (Values against PyTorch: torch_optim.py.)
#include <gtest/gtest.h>

#include "lazax/api/tensor.h"
#include "lazax/core/metrics.h"
#include "lazax/optim/adamw.h"
#include "lazax/optim/clip_grad.h"
#include "lazax/optim/sgd.h"
#include "lazax/runtime/context.h"

namespace lazax::optim {
namespace {

int64_t counter(const char* name) { return metrics::counter(name).get(); }

void start_with_an_empty_compile_cache() {
  lazax::sync();
  Context::get().cache().clear();
}

NamedTensors make_params() {
  return {
      {"w", from_vector<float>({0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}, {2, 3}).requires_grad_()},
      {"b", from_vector<float>({0.1f, -0.2f}, {2}).requires_grad_()}};
}

// A small model's loss: forward and backward are recorded into the same graph as the update.
Tensor loss_of(const NamedTensors& p, int step) {
  Tensor x = from_vector<float>({1.0f, 2.0f - static_cast<float>(step), 0.5f}, {3});
  Tensor y = matmul(p[0].second, x) + p[1].second;
  return (tanh(y) * y).sum();
}

std::unique_ptr<Optimizer> make(const std::string& kind, const NamedTensors& p) {
  if (kind == "sgd") {
    SGDOptions o;
    o.lr = 0.1;
    o.momentum = 0.9;
    o.nesterov = true;
    o.weight_decay = 0.01;
    return std::make_unique<SGD>(p, o);
  }
  AdamWOptions o;
  o.amsgrad = kind == "adamw_amsgrad";
  return std::make_unique<AdamW>(p, o);
}

class EveryOptimizer : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryOptimizer, FiveStepsWithChangingLrCompileOnceWithoutGraphBreaks) {
  start_with_an_empty_compile_cache();
  NamedTensors p = make_params();
  auto opt = make(GetParam(), p);
  const int64_t uncached = counter("UncachedCompile"), cached = counter("CachedCompile");
  const int64_t breaks = counter("GraphBreaks");
  std::vector<Tensor> norms;
  for (int s = 0; s < 5; ++s) {
    Tensor loss = loss_of(p, s);
    loss.backward();
    norms.push_back(clip_grad_norm_(p, 0.5 + s));         // max_norm changes too
    opt->set_lr(0.01 / (1 + s) + (s == 2 ? 0.99 : 0.0));  // 1.0 at step 2: still data
    opt->step();
    opt->zero_grad();
    EXPECT_TRUE(p[0].second.is_pending());  // nothing ran yet
    lazax::sync();
  }
  EXPECT_EQ(counter("UncachedCompile") - uncached, 1);
  EXPECT_EQ(counter("CachedCompile") - cached, 4);
  EXPECT_EQ(counter("GraphBreaks"), breaks);
  EXPECT_EQ(opt->step_count(), 5);
  for (const Tensor& n : norms) EXPECT_GT(n.item(), 0.0);
}

TEST_P(EveryOptimizer, StateDictContinuesARunExactly) {
  NamedTensors a = make_params();
  auto opt_a = make(GetParam(), a);
  auto train = [](NamedTensors& p, Optimizer& opt, int from, int to) {
    for (int s = from; s < to; ++s) {
      loss_of(p, s).backward();
      opt.set_lr(0.05 / (1 + s));
      opt.step();
      opt.zero_grad();
      lazax::sync();
    }
  };
  train(a, *opt_a, 0, 3);
  // A second run resumes from copies of a's weights and optimizer state.
  NamedTensors b = make_params();
  for (size_t i = 0; i < b.size(); ++i) {
    NoGrad off;
    b[i].second.copy_(Tensor(a[i].second.literal().clone()));
  }
  auto opt_b = make(GetParam(), b);
  const OptimizerState saved = opt_a->state_dict();
  EXPECT_EQ(saved.step, 3);
  EXPECT_EQ(saved.kind, GetParam().substr(0, GetParam().find('_')));
  opt_b->load_state_dict(saved);
  EXPECT_EQ(opt_b->step_count(), 3);
  train(a, *opt_a, 3, 6);
  train(b, *opt_b, 3, 6);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(a[i].second.literal().bit_equal(b[i].second.literal())) << a[i].first;
}

INSTANTIATE_TEST_SUITE_P(Optim, EveryOptimizer, ::testing::Values("sgd", "adamw", "adamw_amsgrad"));

TEST(Optimizer, StateDictNamesItsEntries) {
  NamedTensors p = make_params();
  AdamW opt(p, {});
  EXPECT_TRUE(opt.state_dict().tensors.empty());  // no state before the first step
  p[0].second.set_grad(ones({2, 3}));             // only w has a gradient
  opt.step();
  const OptimizerState s = opt.state_dict();
  std::vector<std::string> names;
  for (const auto& [name, t] : s.tensors) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"w.exp_avg", "w.exp_avg_sq", "w.step"}));
  EXPECT_EQ(s.tensors[2].second.item(), 1.0);
  EXPECT_EQ(s.lr, 1e-3);
}

TEST(Optimizer, LoadStateDictIsStrictAndChangesNothingOnError) {
  NamedTensors p = make_params();
  AdamW opt(p, {});
  for (auto& [name, t] : p) t.set_grad(ones_like(t));
  opt.step();
  const OptimizerState good = opt.state_dict();
  auto expect_error = [&](OptimizerState s, const std::string& fragment) {
    try {
      opt.load_state_dict(s);
      ADD_FAILURE() << "no error; expected: " << fragment;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_EQ(opt.step_count(), 1);
  };
  OptimizerState s = good;
  s.kind = "sgd";
  expect_error(s, "cannot load the state of a 'sgd' optimizer into a 'adamw' optimizer");
  s = good;
  s.tensors.emplace_back("v.exp_avg", zeros({2}));
  expect_error(s, "unexpected state entry 'v.exp_avg'");
  s = good;
  s.tensors.erase(s.tensors.begin() + 1);
  expect_error(s, "the state of parameter 'w' is incomplete: missing 'w.exp_avg_sq'");
  s = good;
  s.tensors[0].second = zeros({3, 2});
  expect_error(s, "the state entry 'w.exp_avg' is f32[3,2] but parameter 'w' is f32[2,3]");
  s = good;
  s.tensors[2].second = scalar_tensor(1.0);
  expect_error(s, "the state entry 'w.step' is f32[], expected i64[]");
  s = good;
  s.tensors.push_back(s.tensors[0]);
  expect_error(s, "'w.exp_avg' appears twice");
  s = good;
  s.step = -1;
  expect_error(s, "negative");
  // An empty state (a fresh optimizer's) is fine: it clears the state.
  opt.load_state_dict(OptimizerState{"adamw", 0.5, 0, {}});
  EXPECT_EQ(opt.step_count(), 0);
  EXPECT_EQ(opt.lr(), 0.5);
  EXPECT_TRUE(opt.state_dict().tensors.empty());
}

TEST(Optimizer, OptionsAndParametersAreCheckedAsPyTorchDoes) {
  auto expect_error = [](auto&& make, const std::string& fragment) {
    try {
      make();
      ADD_FAILURE() << "no error; expected: " << fragment;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  NamedTensors p = make_params();
  expect_error([&] { SGD(p, {.lr = -1}); }, "[sgd] invalid learning rate");
  expect_error([&] { SGD(p, {.momentum = -0.5}); }, "invalid momentum");
  expect_error([&] { SGD(p, {.weight_decay = -1}); }, "invalid weight_decay");
  expect_error([&] { SGD(p, {.nesterov = true}); }, "nesterov momentum needs momentum > 0");
  expect_error([&] { SGD(p, {.momentum = 0.9, .dampening = 0.1, .nesterov = true}); },
               "dampening 0");
  expect_error([&] { AdamW(p, {.beta1 = 1.0}); }, "[adamw] invalid beta1");
  expect_error([&] { AdamW(p, {.beta2 = -0.1}); }, "invalid beta2");
  expect_error([&] { AdamW(p, {.eps = -1}); }, "invalid epsilon");
  expect_error([&] { AdamW(p, {.weight_decay = -1}); }, "invalid weight_decay");
  expect_error([&] { AdamW({{"a", p[0].second}, {"a", p[1].second}}); }, "'a' appears twice");
  expect_error([&] { AdamW({{"a", p[0].second}, {"b", p[0].second}}); }, "the same tensor");
  expect_error([&] { AdamW({{"", p[0].second}}); }, "empty name");
  expect_error([&] { AdamW({{"i", zeros({2}, DType::i32)}}); }, "'i' is i32[2]");
  expect_error([&] { AdamW({{"u", Tensor()}}); }, "undefined");
  AdamW opt(p);
  expect_error([&] { opt.set_lr(-1); }, "invalid learning rate");
}

TEST(Optimizer, StepSkipsParametersWithoutGradAndZeroGradClears) {
  NamedTensors p = make_params();
  const Literal b0 = p[1].second.literal().clone();
  SGD opt(p, {.lr = 0.5});
  p[0].second.set_grad(ones({2, 3}));
  opt.step();
  EXPECT_EQ(p[0].second.to_vector<float>(),
            (std::vector<float>{0.0f, -1.5f, 1.5f, -0.25f, -1.25f, 1.0f}));
  EXPECT_TRUE(p[1].second.literal().bit_equal(b0));
  opt.zero_grad();
  EXPECT_FALSE(p[0].second.grad().defined());
  // A parameter still requires grad after its update, and a new backward reaches it.
  EXPECT_TRUE(p[0].second.requires_grad());
  loss_of(p, 0).backward();
  EXPECT_TRUE(p[0].second.grad().defined());
}

TEST(Optimizer, NumberedNamesTensors) {
  NamedTensors n = numbered({zeros({1}), zeros({2})});
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0].first, "0");
  EXPECT_EQ(n[1].first, "1");
}

}  // namespace
}  // namespace lazax::optim
