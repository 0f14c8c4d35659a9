// Checkpoints: a run resumed from a checkpoint continues bit for bit as the uninterrupted run
// (weights, AdamW/SGD state, step, data position and the random generator); loading is strict
// and all-or-nothing; plain weight files load by name.
#include "lazax/optim/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "lazax/api/random.h"
#include "lazax/io/safetensors.h"
#include "lazax/optim/adamw.h"
#include "lazax/optim/sgd.h"

namespace lazax::optim {
namespace {

namespace fs = std::filesystem;

class Checkpoints : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lazax_checkpoint_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

NamedTensors init_params(uint64_t seed) {
  Generator g(seed);
  return {{"emb", g.normal({5, 4}).requires_grad_()},
          {"proj.weight", g.normal({3, 4}).requires_grad_()},
          {"proj.bias", zeros({3}).requires_grad_()}};
}

// A training step with everything a real one has: data picked by the data position, dropout
// from the generator, clipping-free AdamW with a schedule-like lr.
double train_step(const NamedTensors& p, Optimizer& opt, Generator& gen, int64_t& data_position,
                  int64_t step) {
  Tensor ids = from_vector<int64_t>({data_position % 5, (data_position * 3 + 1) % 5}, {2});
  data_position += 2;
  Tensor h = embedding(p[0].second, ids);
  Tensor keep = lt(gen.uniform({2, 4}), scalar_tensor(0.8)).to(DType::f32);
  Tensor y = matmul(h * keep / 0.8, p[1].second.t()) + p[2].second;
  Tensor loss = cross_entropy(y, from_vector<int64_t>({1, 2}, {2}));
  loss.backward();
  opt.set_lr(0.05 / static_cast<double>(1 + step));
  opt.step();
  opt.zero_grad();
  return loss.item();
}

std::unique_ptr<Optimizer> make(const std::string& kind, const NamedTensors& p) {
  if (kind == "sgd") return std::make_unique<SGD>(p, SGDOptions{.lr = 0.1, .momentum = 0.9});
  return std::make_unique<AdamW>(p, AdamWOptions{.amsgrad = true});
}

class ResumeEveryOptimizer : public Checkpoints,
                             public ::testing::WithParamInterface<std::string> {};

TEST_P(ResumeEveryOptimizer, AResumedRunIsBitIdentical) {
  constexpr int kSteps = 8, kSaveAt = 3;
  // The uninterrupted run.
  std::vector<double> losses;
  NamedTensors a = init_params(1);
  auto opt_a = make(GetParam(), a);
  Generator gen_a(42);
  int64_t pos_a = 0;
  for (int s = 0; s < kSteps; ++s) losses.push_back(train_step(a, *opt_a, gen_a, pos_a, s));

  // The interrupted run: save after kSaveAt steps, then restore into fresh objects.
  NamedTensors b = init_params(1);
  auto opt_b = make(GetParam(), b);
  Generator gen_b(42);
  int64_t pos_b = 0;
  for (int s = 0; s < kSaveAt; ++s) EXPECT_EQ(train_step(b, *opt_b, gen_b, pos_b, s), losses[s]);
  save_checkpoint(path("ck.safetensors"), b, opt_b.get(), &gen_b,
                  {.step = kSaveAt, .data_position = pos_b, .extra = {{"note", "hi"}}});

  NamedTensors c = init_params(999);
  auto opt_c = make(GetParam(), c);
  Generator gen_c(7);
  const CheckpointInfo info = load_checkpoint(path("ck.safetensors"), c, opt_c.get(), &gen_c);
  EXPECT_EQ(info.step, kSaveAt);
  EXPECT_EQ(info.data_position, pos_b);
  EXPECT_EQ(info.extra, (std::vector<std::pair<std::string, std::string>>{{"note", "hi"}}));
  EXPECT_EQ(opt_c->step_count(), kSaveAt);
  int64_t pos_c = info.data_position;
  for (int s = kSaveAt; s < kSteps; ++s) {
    EXPECT_EQ(train_step(c, *opt_c, gen_c, pos_c, s), losses[s]) << "step " << s;
  }
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(a[i].second.literal().bit_equal(c[i].second.literal())) << a[i].first;
  EXPECT_TRUE(gen_a.get_state().bit_equal(gen_c.get_state()));
  // Loading restored the handles in place: the optimizer still updates c's tensors.
  EXPECT_TRUE(c[0].second.requires_grad());
}

INSTANTIATE_TEST_SUITE_P(Optim, ResumeEveryOptimizer, ::testing::Values("sgd", "adamw"));

TEST_F(Checkpoints, TheFileIsPlainSafetensorsWithPrefixesAndMetadata) {
  NamedTensors p = init_params(3);
  AdamW opt(p);
  for (auto& [n, t] : p) t.set_grad(ones_like(t));
  opt.step();
  Generator gen(5);
  save_checkpoint(path("ck.safetensors"), p, &opt, &gen, {.step = 1, .data_position = 64});
  const SafetensorsFile f = read_safetensors(path("ck.safetensors"));
  std::vector<std::string> names;
  for (const auto& [n, lit] : f.tensors) names.push_back(n);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "model.emb", "model.proj.weight", "model.proj.bias", "optim.emb.exp_avg",
                "optim.emb.exp_avg_sq", "optim.emb.step", "optim.proj.weight.exp_avg",
                "optim.proj.weight.exp_avg_sq", "optim.proj.weight.step", "optim.proj.bias.exp_avg",
                "optim.proj.bias.exp_avg_sq", "optim.proj.bias.step", "rng.state"}));
  EXPECT_EQ(f.meta("format"), "lazax-training-checkpoint/2");
  EXPECT_EQ(f.meta("checksum")->size(), 16u);
  EXPECT_EQ(f.meta("step"), "1");
  EXPECT_EQ(f.meta("data_position"), "64");
  EXPECT_EQ(f.meta("optim.kind"), "adamw");
  EXPECT_EQ(f.meta("optim.lr"), "0.001");
  EXPECT_EQ(f.meta("optim.step"), "1");
  EXPECT_EQ(f.find("rng.state")->to_vector<int64_t>(), (std::vector<int64_t>{5, 0}));
  EXPECT_TRUE(f.find("model.emb")->bit_equal(p[0].second.literal()));
}

TEST_F(Checkpoints, LoadingIsStrictAndAllOrNothing) {
  NamedTensors p = init_params(3);
  AdamW opt(p);
  for (auto& [n, t] : p) t.set_grad(ones_like(t));
  opt.step();
  Generator gen(5);
  save_checkpoint(path("ck.safetensors"), p, &opt, &gen, {.step = 1});

  NamedTensors q = init_params(4);
  const Literal q0 = q[0].second.literal().clone();
  AdamW fresh(q);
  Generator other(6);
  auto expect_error = [&](const NamedTensors& into, Optimizer* o, Generator* g,
                          const std::string& fragment) {
    try {
      load_checkpoint(path("ck.safetensors"), into, o, g);
      ADD_FAILURE() << "no error; expected: " << fragment;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_TRUE(q[0].second.literal().bit_equal(q0));  // nothing changed
    EXPECT_EQ(fresh.step_count(), 0);
    EXPECT_EQ(other.initial_seed(), 6u);
  };
  NamedTensors fewer(q.begin(), q.begin() + 2);
  expect_error(fewer, &fresh, &other, "entries that name no weight: 'model.proj.bias'");
  NamedTensors more = q;
  more.emplace_back("extra", zeros({2}));
  expect_error(more, nullptr, nullptr, "the file has no 'model.extra'");
  NamedTensors wrong = q;
  wrong[2].second = zeros({4});
  expect_error(wrong, nullptr, nullptr,
               "weight 'proj.bias' is f32[4] but the file's 'model.proj.bias' is f32[3]");
  SGD sgd(q, {.lr = 0.1});
  try {
    load_checkpoint(path("ck.safetensors"), q, &sgd, nullptr);
    ADD_FAILURE();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("optimizer state: [sgd] cannot load the state of a "
                                         "'adamw' optimizer"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(q[0].second.literal().bit_equal(q0));
  save_checkpoint(path("no_rng.safetensors"), p, nullptr, nullptr, {});
  EXPECT_THROW(load_checkpoint(path("no_rng.safetensors"), q, nullptr, &other), ValueError);
  EXPECT_THROW(load_checkpoint(path("no_rng.safetensors"), q, &fresh, nullptr), ValueError);
  EXPECT_TRUE(q[0].second.literal().bit_equal(q0));
  // A weights-only file is not a training checkpoint.
  save_weights(path("w.safetensors"), p);
  EXPECT_THROW(load_checkpoint(path("w.safetensors"), q, nullptr, nullptr), ValueError);
  EXPECT_THROW(
      save_checkpoint(path("x.safetensors"), p, nullptr, nullptr, {.extra = {{"step", "9"}}}),
      ValueError);
  EXPECT_THROW(load_checkpoint(path("missing.safetensors"), q, nullptr, nullptr), IOError);
}

TEST_F(Checkpoints, WeightsRoundTripByName) {
  NamedTensors p = init_params(3), q = init_params(8);
  save_weights(path("w.safetensors"), p);
  load_weights(path("w.safetensors"), q);
  for (size_t i = 0; i < p.size(); ++i)
    EXPECT_TRUE(p[i].second.literal().bit_equal(q[i].second.literal()));
  NamedTensors renamed = {{"other", q[0].second}};
  EXPECT_THROW(load_weights(path("w.safetensors"), renamed), ValueError);
}

TEST(GeneratorState, GetAndSetStateReplayTheNumbers) {
  Generator g(11);
  g.normal({3});
  const Literal state = g.get_state();
  const std::vector<float> next = g.uniform({4}).to_vector<float>();
  Generator h(0);
  h.set_state(state);
  EXPECT_EQ(h.initial_seed(), 11u);
  EXPECT_EQ(h.uniform({4}).to_vector<float>(), next);
  EXPECT_THROW(h.set_state(Literal::from_vector<int32_t>({1, 2}, Shape{2})), ValueError);
  EXPECT_THROW(h.set_state(Literal::from_vector<int64_t>({1, 2, 3}, Shape{3})), ValueError);
}

}  // namespace
}  // namespace lazax::optim
