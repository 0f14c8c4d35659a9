// nn::ParameterShards in a world of one (the multi-rank runs are tests/dist/mpi/shard.py): the
// shards are the flattened parameters, and every operation gives back what it was given.
#include "lazax/nn/sharding.h"

#include <gtest/gtest.h>

#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/remat.h"
#include "lazax/core/error.h"
#include "lazax/optim/clip_grad.h"

namespace lazax::nn {
namespace {

std::vector<float> values(const Tensor& t) { return t.reshape({-1}).to_vector<float>(); }

ParameterShards::Named two_params() {
  Tensor a = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = from_vector<float>({7, 8, 9}, {3});
  a.requires_grad_();
  b.requires_grad_();
  return {{"a", a}, {"b", b}};
}

TEST(Sharding, ShardsAreTheFlatParametersAndGatherGivesThemBack) {
  const auto params = two_params();
  ParameterShards s(params);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.shards()[0].first, "a");
  EXPECT_EQ(s.shards()[0].second.shape(), Shape{6});
  EXPECT_TRUE(s.shards()[0].second.requires_grad());
  const std::vector<Tensor> full = s.gather();
  EXPECT_EQ(full[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values(full[0]), values(params[0].second));
  EXPECT_EQ(values(s.unshard(1, s.slice(1, params[1].second))), values(params[1].second));
}

TEST(Sharding, GatheredParametersCarryTheGradientToTheShards) {
  ParameterShards s(two_params());
  const std::vector<Tensor> full = s.gather();
  (full[0].sum() * 2.0 + full[1].square().sum()).backward();
  EXPECT_EQ(values(s.shards()[0].second.grad()), std::vector<float>(6, 2.0f));
  EXPECT_EQ(values(s.shards()[1].second.grad()), (std::vector<float>{14, 16, 18}));
}

TEST(Sharding, ScatterGradientsAndGatherInto) {
  const auto named = two_params();
  std::vector<Tensor> params = {named[0].second, named[1].second};
  ParameterShards s(named, 8);  // 8 bytes: one bucket per parameter
  (params[0].sum() + params[1].sum() * 3.0).backward();
  EXPECT_EQ(s.scatter_gradients(params), 2);
  EXPECT_FALSE(params[0].grad().defined());
  EXPECT_EQ(values(s.shards()[1].second.grad()), std::vector<float>(3, 3.0f));
  {
    NoGrad off;
    Tensor shard = s.shards()[0].second;
    shard.copy_(shard * 10.0);
  }
  s.gather_into(params);
  EXPECT_EQ(values(params[0]), (std::vector<float>{10, 20, 30, 40, 50, 60}));
}

TEST(Sharding, ClipUsesTheGlobalNormAsClipGradNorm) {
  ParameterShards s(two_params());
  const std::vector<Tensor> full = s.gather();
  (full[0].square().sum() + full[1].square().sum()).backward();
  std::vector<Tensor> ref = {zeros({6}), zeros({3})};
  for (size_t i = 0; i < 2; ++i) ref[i].set_grad(s.shards()[i].second.grad().clone());
  const double want = optim::clip_grad_norm_(ref, 1.0).item();
  EXPECT_NEAR(clip_sharded_grad_norm_(s.shard_tensors(), 1.0).item(), want, 1e-4 * want);
  for (size_t i = 0; i < 2; ++i) {
    const auto got = values(s.shards()[i].second.grad()), exp = values(ref[i].grad());
    for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], exp[k], 1e-6);
  }
}

TEST(Sharding, GatherOfSomeParametersLeavesTheOthersUndefined) {
  const auto params = two_params();
  ParameterShards s(params);
  const std::vector<Tensor> full = s.gather({1});
  ASSERT_EQ(full.size(), 2u);
  EXPECT_FALSE(full[0].defined());
  EXPECT_EQ(values(full[1]), values(params[1].second));
  EXPECT_THROW(s.gather({2}), ValueError);
}

// A layer that gathers its parameter inside an assume_pure call (FSDP layer by layer): by
// default its backward keeps the gathered parameter; under regather_policy it keeps the shard
// and gathers again, with the same gradients.
TEST(Sharding, RegatherPolicyKeepsTheShardAndGathersAgainInTheBackward) {
  auto layer = [](const std::vector<Tensor>& shards, const Tensor& x) {
    const std::vector<Tensor> p = gather_shards(shards, {Shape{3, 2}, Shape{2}});
    return tanh(matmul(x, p[0]) + p[1]).sum();
  };
  const Tensor x = from_vector<float>({0.5f, -1, 2, 0.25f, 1, -0.5f}, {2, 3});
  auto grads = [&](auto& f) {
    std::vector<Tensor> shards = {from_vector<float>({0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f}, {6}),
                                  from_vector<float>({0.7f, -0.8f}, {2})};
    for (Tensor& t : shards) t.requires_grad_();
    f(shards, x).backward();
    std::vector<float> g = values(shards[0].grad()), g1 = values(shards[1].grad());
    g.insert(g.end(), g1.begin(), g1.end());
    return g;
  };
  auto plain = assume_pure(layer, PureOptions{"layer"});
  PureOptions opts{"layer_regather"};
  opts.remat = std::make_shared<const RematPolicy>(regather_policy(nullptr));
  EXPECT_EQ(opts.remat->name, "regather(default)");
  auto regather = assume_pure(layer, opts);
  const std::vector<Tensor> shard = {zeros({6}), zeros({2})};
  // The gathered parameters, or their slices out of the gathered bucket.
  auto keeps_gathered = [](const std::vector<std::string>& lines) {
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    return all.find("all_gather") != std::string::npos || all.find("slice") != std::string::npos;
  };
  const std::vector<std::string> by_default = saved_residuals(plain, shard, x);
  EXPECT_TRUE(keeps_gathered(by_default)) << testing::PrintToString(by_default);
  const std::vector<std::string> kept = saved_residuals(regather, shard, x);
  EXPECT_FALSE(keeps_gathered(kept)) << testing::PrintToString(kept);
  const std::vector<float> want = grads(layer), a = grads(plain), b = grads(regather);
  ASSERT_EQ(want.size(), 8u);
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_NEAR(a[k], want[k], 1e-6) << k;
    EXPECT_NEAR(b[k], want[k], 1e-6) << k;
  }
  EXPECT_THROW(gather_shard(zeros({5}), Shape{3, 2}), ShapeError);
  EXPECT_THROW(gather_shards({zeros({6})}, {Shape{3, 2}, Shape{2}}), ValueError);
}

TEST(Sharding, ModesAndErrors) {
  EXPECT_EQ(shard_mode_from_string("full"), ShardMode::full);
  EXPECT_STREQ(shard_mode_name(ShardMode::optimizer), "optimizer");
  try {
    shard_mode_from_string("zero3");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("--shard 'zero3'"), std::string::npos);
  }
  Tensor i = from_vector<int64_t>({1, 2}, {2});
  EXPECT_THROW(ParameterShards({{"i", i}}), ValueError);
  Tensor a = zeros({4});
  EXPECT_EQ(distinct_bytes({a, a, Tensor(), zeros({2})}), 24);
}

}  // namespace
}  // namespace lazax::nn
