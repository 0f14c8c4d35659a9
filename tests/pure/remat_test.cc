// Remat (issue 19): checkpoint(f, policy) gives the same gradients as f under every policy, and
// the policy decides what the backward keeps (saved_residuals): nothing_saveable keeps only the
// inputs, save_only_these_names the named values, dots_saveable the matmuls.
#include "lazax/autodiff/remat.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lazax/autodiff/function_ad.h"
#include "lazax/autodiff/transforms.h"
#include "lazax/backend/backend.h"
#include "lazax/ir/printer.h"
#include "lazax/trace/call_site.h"
#include "pure_test_util.h"

using namespace lazax;
using lazax::pure_test::expect_near;
using lazax::pure_test::vec;

namespace {

// Two layers with named activations.
Tensor net(const Tensor& x, const Tensor& w1, const Tensor& w2) {
  Tensor h = checkpoint_name(tanh(matmul(x, w1)), "h");
  Tensor y = checkpoint_name(sin(matmul(h, w2)), "y");
  return (y * y).sum();
}

struct Inputs {
  Tensor x = from_vector<float>({0.5f, -1, 2, 0.25f, 1.5f, -0.75f}, {2, 3});
  Tensor w1 = from_vector<float>(
      {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f, 0.9f, -0.1f, 0.2f, 0.3f}, {3, 4});
  Tensor w2 = from_vector<float>({0.3f, -0.1f, 0.2f, 0.5f, -0.4f, 0.6f, 0.1f, 0.2f}, {4, 2});
};

std::vector<RematPolicy> all_policies() {
  using namespace policies;
  return {everything_saveable(),
          nothing_saveable(),
          dots_saveable(),
          dots_with_no_batch_dims_saveable(),
          save_only_these_names({"h"}),
          save_any_names_but_these({"y"}),
          save_anything_except_these_names({"h"}),
          save_from_both_policies(dots_saveable(), save_only_these_names({"y"})),
          save_and_offload_only_these_names({"y"}, {"h"}),
          offload_dot_with_no_batch_dims(),
          custom("tanh_only", [](const Function&, const Node& n) { return n.op == OpCode::tanh; })};
}

int count_with(const std::vector<std::string>& lines, const std::string& part) {
  int n = 0;
  for (const std::string& l : lines) n += l.find(part) != std::string::npos;
  return n;
}

}  // namespace

TEST(Remat, EveryPolicyGivesTheSameGradients) {
  Inputs in;
  auto want = grad(net, argnums<0, 1, 2>)(in.x, in.w1, in.w2);
  for (const RematPolicy& policy : all_policies()) {
    SCOPED_TRACE(policy.name);
    auto f = checkpoint(net, policy);
    auto got = grad([&](const Tensor& x, const Tensor& a, const Tensor& b) { return f(x, a, b); },
                    argnums<0, 1, 2>)(in.x, in.w1, in.w2);
    expect_near(vec(std::get<0>(got)), vec(std::get<0>(want)));
    expect_near(vec(std::get<1>(got)), vec(std::get<1>(want)));
    expect_near(vec(std::get<2>(got)), vec(std::get<2>(want)));
  }
}

TEST(Remat, ThePolicyDecidesWhatTheBackwardKeeps) {
  Inputs in;
  auto saved = [&](RematPolicy p) {
    auto f = checkpoint(net, std::move(p));
    return saved_residuals(f, in.x, in.w1, in.w2);
  };
  std::vector<std::string> nothing = saved(policies::nothing_saveable());
  EXPECT_EQ(count_with(nothing, "from the argument"), static_cast<int>(nothing.size()))
      << ::testing::PrintToString(nothing);
  std::vector<std::string> everything = saved(policies::everything_saveable());
  EXPECT_GT(count_with(everything, "output of") + count_with(everything, "named"), 0)
      << ::testing::PrintToString(everything);
  std::vector<std::string> h_only = saved(policies::save_only_these_names({"h"}));
  EXPECT_EQ(count_with(h_only, "f32[2,4] named 'h'"), 1) << ::testing::PrintToString(h_only);
  EXPECT_EQ(count_with(h_only, "output of"), 0) << ::testing::PrintToString(h_only);
  EXPECT_EQ(count_with(h_only, "'y'"), 0) << ::testing::PrintToString(h_only);
  std::vector<std::string> dots = saved(policies::dots_saveable());
  EXPECT_GE(count_with(dots, "output of dot_general"), 1) << ::testing::PrintToString(dots);
  EXPECT_EQ(count_with(dots, "named"), 0) << ::testing::PrintToString(dots);
  EXPECT_EQ(count_with(dots, "output of tanh") + count_with(dots, "output of sin"), 0)
      << ::testing::PrintToString(dots);
}

// names_transparent: checkpoint_name means nothing, as without a policy, so that a policy that
// saves anything splits as no policy does, and one that vetoes a value drops only that value.
TEST(Remat, TransparentNamesSplitAsWithoutAPolicy) {
  Inputs in;
  auto transparent = [](std::string name, std::function<bool(const Node&)> keep) {
    RematPolicy p = policies::custom(std::move(name),
                                     [keep](const Function&, const Node& n) { return keep(n); });
    p.names_transparent = true;
    return p;
  };
  auto no_policy = assume_pure(net, PureOptions{"net_plain"});
  const std::vector<std::string> plain = saved_residuals(no_policy, in.x, in.w1, in.w2);
  auto all = checkpoint(net, transparent("all", [](const Node&) { return true; }));
  EXPECT_EQ(saved_residuals(all, in.x, in.w1, in.w2), plain);
  EXPECT_EQ(count_with(plain, "named"), 0) << ::testing::PrintToString(plain);
  EXPECT_GT(count_with(plain, "output of tanh"), 0) << ::testing::PrintToString(plain);
  // Without names_transparent the same predicate (and name) saves the named values as well.
  auto named_policy =
      checkpoint(net, policies::custom("all", [](const Function&, const Node&) { return true; }));
  const std::vector<std::string> named = saved_residuals(named_policy, in.x, in.w1, in.w2);
  EXPECT_GT(count_with(named, "named"), 0) << ::testing::PrintToString(named);
  const RematPolicy no_tanh =
      transparent("no_tanh", [](const Node& n) { return n.op != OpCode::tanh; });
  auto f = checkpoint(net, no_tanh);
  const std::vector<std::string> vetoed = saved_residuals(f, in.x, in.w1, in.w2);
  EXPECT_EQ(count_with(vetoed, "output of tanh") + count_with(vetoed, "named"), 0)
      << ::testing::PrintToString(vetoed);
  auto want = grad(net, argnums<0, 1, 2>)(in.x, in.w1, in.w2);
  auto got = grad([&](const Tensor& x, const Tensor& a, const Tensor& b) { return f(x, a, b); },
                  argnums<0, 1, 2>)(in.x, in.w1, in.w2);
  expect_near(vec(std::get<1>(got)), vec(std::get<1>(want)));
  expect_near(vec(std::get<2>(got)), vec(std::get<2>(want)));
}

TEST(Remat, PreventCseReadsTheBackwardsInputsThroughABarrier) {
  Inputs in;
  auto with = checkpoint(net, policies::nothing_saveable(), {"with_barrier", true});
  auto without = checkpoint(net, policies::nothing_saveable(), {"no_barrier", false});
  for (auto* f : {&with, &without}) {
    auto e = f->entry(in.x, in.w1, in.w2);
    std::vector<bool> wrt(static_cast<size_t>(e->fn->num_params()), true);
    const auto& p = autodiff::vjp_programs(e->fn, wrt, e->remat.get(), f->options().prevent_cse);
    std::string bwd = print_program(*p.bwd);
    EXPECT_EQ(bwd.find("optimization_barrier") != std::string::npos, f == &with) << bwd;
    // The backward recomputes the forward: it has the transcendentals.
    EXPECT_NE(bwd.find("tanh"), std::string::npos) << bwd;
  }
}

TEST(Remat, WorksUnderTheTapeAndNested) {
  Inputs in;
  Tensor w1 = in.w1.detach().requires_grad_(), w2 = in.w2.detach().requires_grad_();
  net(in.x, w1, w2).backward();
  std::vector<float> g1 = vec(w1.grad()), g2 = vec(w2.grad());
  zero_grad({w1, w2});
  auto inner = checkpoint([](const Tensor& x, const Tensor& w) { return tanh(matmul(x, w)); },
                          policies::nothing_saveable(), {"inner"});
  auto outer = checkpoint(
      [&](const Tensor& x, const Tensor& a, const Tensor& b) {
        Tensor h = checkpoint_name(inner(x, a), "h");
        Tensor y = sin(matmul(h, b));
        return (y * y).sum();
      },
      policies::save_only_these_names({"h"}), {"outer"});
  for (int step = 0; step < 2; ++step) {  // traced, then replayed
    outer(in.x, w1, w2).backward();
    expect_near(vec(w1.grad()), g1);
    expect_near(vec(w2.grad()), g2);
    zero_grad({w1, w2});
  }
}

// Offloaded residuals are saved in host memory: the forward copies them there, the backward
// copies them back, and the cpu backend's plan counts their bytes as host bytes.
TEST(Remat, OffloadMovesNamedResidualsToHost) {
  Inputs in;
  auto f = checkpoint(net, policies::save_and_offload_only_these_names({"y"}, {"h"}));
  std::vector<std::string> lines = saved_residuals(f, in.x, in.w1, in.w2);
  EXPECT_EQ(count_with(lines, "f32[2,4] named 'h' (offloaded to host)"), 1)
      << ::testing::PrintToString(lines);
  EXPECT_EQ(count_with(lines, "f32[2,2] named 'y'"), 1) << ::testing::PrintToString(lines);
  EXPECT_EQ(count_with(lines, "'y' (offloaded"), 0) << ::testing::PrintToString(lines);
  auto e = f.entry(in.x, in.w1, in.w2);
  std::vector<bool> wrt(static_cast<size_t>(e->fn->num_params()), true);
  const auto& p = autodiff::vjp_programs(e->fn, wrt, e->remat.get(), e->prevent_cse);
  auto fwd = make_backend("cpu")->compile(p.fwd);
  EXPECT_EQ(fwd->plan_stats().peak_host_bytes, 2 * 4 * 4);  // h, f32[2,4]
  EXPECT_NE(print_program(*p.bwd).find("copy_to_memory_kind"), std::string::npos);
  EXPECT_THROW(policies::save_and_offload_only_these_names({"h", "y"}, {"y"}), ValueError);
}

// memory_budget: the backward keeps at most the budget, recomputing less than nothing_saveable
// (matmuls are never recomputed), with the same gradients; an impossible budget says so.
TEST(Remat, MemoryBudgetFitsAndRecomputesLessThanNothingSaveable) {
  Inputs in;
  auto split = [&](const RematPolicy& policy) {
    auto f = checkpoint(net, policy);
    auto e = f.entry(in.x, in.w1, in.w2);
    std::vector<bool> wrt(static_cast<size_t>(e->fn->num_params()), true);
    const auto& p = autodiff::vjp_programs(e->fn, wrt, e->remat.get(), e->prevent_cse);
    int64_t bytes = 0;
    for (int k = 0; k < p.num_residuals; ++k)
      bytes += static_cast<int64_t>(
          p.fwd->type(p.fwd->results()[static_cast<size_t>(p.num_outputs) + static_cast<size_t>(k)])
              .bytes());
    int dots = 0;
    for (const Node& n : p.bwd->nodes()) dots += n.op == OpCode::dot_general;
    return std::make_pair(bytes, dots);
  };
  auto [all_bytes, all_dots] = split(policies::everything_saveable());
  auto [none_bytes, none_dots] = split(policies::nothing_saveable());
  EXPECT_EQ(none_bytes, 0);
  // The two matmul outputs (f32[2,4] and f32[2,2]) must stay; everything else may go.
  const int64_t budget = 2 * 4 * 4 + 2 * 2 * 4;
  auto [b_bytes, b_dots] = split(policies::memory_budget(budget));
  EXPECT_LE(b_bytes, budget);
  EXPECT_LT(b_bytes, all_bytes);
  EXPECT_LT(b_dots, none_dots);  // recomputes fewer matmuls than nothing_saveable
  auto want = grad(net, argnums<1, 2>)(in.x, in.w1, in.w2);
  auto f = checkpoint(net, policies::memory_budget(budget));
  auto got = grad([&](const Tensor& x, const Tensor& a, const Tensor& b) { return f(x, a, b); },
                  argnums<1, 2>)(in.x, in.w1, in.w2);
  expect_near(vec(std::get<0>(got)), vec(std::get<0>(want)));
  expect_near(vec(std::get<1>(got)), vec(std::get<1>(want)));
  auto too_small = checkpoint(net, policies::memory_budget(8));
  try {
    grad([&](const Tensor& x, const Tensor& a, const Tensor& b) { return too_small(x, a, b); },
         argnums<1, 2>)(in.x, in.w1, in.w2);
    FAIL() << "expected a ValueError for a budget of 8 bytes";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("raise the budget"), std::string::npos) << e.what();
  }
  EXPECT_EQ(policies::by_name("memory_budget(100)").budget_bytes, 100);
  EXPECT_THROW(policies::memory_budget(-1), ValueError);
}

// Each residual says which line of the caller's code made it (this file is built with -g:
// tests/CMakeLists.txt; lazax's own frames are skipped), and an argument inside a tree says its
// path in the tree.
struct Weights {
  Tensor w1, w2;
  LAZAX_TREE_FIELDS(w1, w2)
};

TEST(Remat, ResidualsSayWhichLineMadeThemAndWhichArgument) {
  Inputs in;
  const int first = __LINE__ + 3;
  auto f = checkpoint(
      [](const Tensor& x, const Weights& w) {
        Tensor h = checkpoint_name(tanh(matmul(x, w.w1)), "h");
        Tensor y = sin(matmul(h, w.w2));
        return (y * y).sum();
      },
      policies::everything_saveable());
  std::vector<std::string> lines = saved_residuals(f, in.x, Weights{in.w1, in.w2});
  const std::string file = "remat_test.cc:";
  const std::string l1 = file + std::to_string(first), l2 = file + std::to_string(first + 1);
  EXPECT_EQ(count_with(lines, "f32[2,4] named 'h' from " + l1), 1)
      << ::testing::PrintToString(lines);
  EXPECT_EQ(count_with(lines, "f32[2,2] output of sin from " + l2), 1)
      << ::testing::PrintToString(lines);
  // What a VJP rule computes in the forward says where its primal was made: cos for sin's,
  // 1 - h*h for tanh's.
  EXPECT_EQ(count_with(lines, "f32[2,2] output of cos from " + l2), 1)
      << ::testing::PrintToString(lines);
  EXPECT_EQ(count_with(lines, "f32[2,4] output of sub from " + l1), 1)
      << ::testing::PrintToString(lines);
  EXPECT_EQ(count_with(lines, "f32[4,2] from the argument 1.w2"), 1)
      << ::testing::PrintToString(lines);
  EXPECT_EQ(count_with(lines, "f32[2,3] from the argument 0"), 1)
      << ::testing::PrintToString(lines);
  // A call's own trace keeps no call sites (capturing costs time per op); saved_residuals traces
  // again under a CallSiteCapture.
  auto sites = [](const Function& fn) {
    int n = 0;
    for (const Node& node : fn.nodes()) n += node.debug.call_site != 0;
    return n;
  };
  const bool was_on = call_sites_enabled();  // (LAZAX_CALL_SITES=1 turns capturing on)
  set_call_sites_enabled(false);
  EXPECT_EQ(sites(*f.entry(in.x, Weights{in.w1, in.w2})->fn), 0);
  set_call_sites_enabled(was_on);
  CallSiteCapture capture;
  EXPECT_GT(sites(*f.trace_fresh(in.x, Weights{in.w1, in.w2})->fn), 0);
}

TEST(Remat, BadPoliciesAndNamesSayWhatToDo) {
  EXPECT_THROW(checkpoint_name(ones({2}), ""), ValueError);
  EXPECT_THROW(policies::save_only_these_names({"a", ""}), ValueError);
  EXPECT_THROW(policies::custom("", nullptr), ValueError);
}
