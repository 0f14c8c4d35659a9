// metrics::snapshot(): the typed counters a program reads, each bumped by the code it names.
#include <gtest/gtest.h>

#include <cmath>

#include "lazax/autodiff/pure.h"
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"

using namespace lazax;

namespace {
// A body no earlier run of this binary has traced: the VJP programs are cached by the function's
// hash for the life of the process, and the suite runs repeated (--gtest_repeat).
auto fresh_layer() {
  static int runs = 0;
  double scale = 1.0 + 1e-3 * ++runs;
  return [scale](const Tensor& w, const Tensor& x) { return tanh(x * w) * scale + x; };
}
}  // namespace

TEST(MetricsSnapshot, EachFieldCountsWhatItsNameSays) {
  lazax::sync();  // what other tests left pending is not ours to count
  Context::get().cache().clear();
  metrics::Snapshot before = metrics::snapshot();

  Tensor w = from_vector<float>({0.5f, -1.0f, 2.0f}, {3});
  w.requires_grad_();
  Tensor x = from_vector<float>({1, 2, 3}, {3});
  auto pure_layer = assume_pure(fresh_layer());
  for (int step = 0; step < 3; ++step) {
    Tensor loss = sum(pure_layer(w, x) * 0.5);
    loss.backward();
    lazax::sync();
    {
      NoGrad no_grad;
      w.sub_(w.grad() * 0.1);
      zero_grad({w});
    }
  }
  double read = sum(w).item();  // a graph break: reading a pending value
  EXPECT_TRUE(std::isfinite(read));

  metrics::Snapshot d = metrics::snapshot() - before;
  EXPECT_GT(d.ops_recorded, 0);
  EXPECT_GE(d.syncs, 3);
  EXPECT_GE(d.graph_breaks, 1);
  EXPECT_EQ(d.graph_size_cuts, 0);
  EXPECT_GT(d.compiles, 0);
  EXPECT_GT(d.cache_hits, 0);  // the steps after the first find their graphs compiled
  EXPECT_GT(d.synced_nodes, 0);
  EXPECT_GE(d.function_traces, 1);
  EXPECT_EQ(d.pure_traces, 1);  // one input signature, traced once
  EXPECT_EQ(d.pure_calls, 3);
  EXPECT_GE(d.vjp_program_builds, 1);
  EXPECT_GT(d.compile_ms, 0);
  EXPECT_GT(d.execute_ms, 0);
  EXPECT_GT(d.sync_hash_ms, 0);
  EXPECT_GT(d.trace_ms, 0);
  EXPECT_GT(d.vjp_build_ms, 0);
}

TEST(MetricsSnapshot, TheFieldsReadTheRegistryByTheTableNames) {
  metrics::Snapshot before = metrics::snapshot();
  metrics::counter("UncachedCompile").add(2);
  metrics::counter("PureCalls").add(5);
  metrics::timer("ExecuteTime").add_ns(3'000'000);
  metrics::Snapshot d = metrics::snapshot() - before;
  EXPECT_EQ(d.compiles, 2);
  EXPECT_EQ(d.pure_calls, 5);
  EXPECT_NEAR(d.execute_ms, 3.0, 1e-6);  // a difference of two running sums
  EXPECT_EQ(d.syncs, 0);
}
