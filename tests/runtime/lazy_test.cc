// Lazy execution: recording, sync, the compile cache, graph breaks, debug output, dumps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "lazax/api/tensor.h"
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"
#include "lazax/runtime/metrics_report.h"
#include "lazax/trace/lazy_value.h"

using namespace lazax;

namespace {
int64_t counter(const char* name) { return metrics::counter(name).get(); }

// Empties the compile cache, for tests that count compiles of programs that another test (or an
// earlier --gtest_repeat round) may have compiled already in this process.
void start_with_an_empty_compile_cache() {
  lazax::sync();  // pending values left by another test compile now, not in the test's count
  Context::get().cache().clear();
}

struct DebugOn {
  DebugOn() { Context::get().options().debug = true; }
  ~DebugOn() { Context::get().options().debug = false; }
};

// One "training step": a linear layer, a loss, an SGD-like update of w with learning rate lr.
void step(Tensor& w, const Tensor& x, double lr) {
  Tensor y = tanh(add(x * w, x));
  Tensor g = y * 2.0;
  w.sub_(g * lr);
}
}  // namespace

TEST(Lazy, NothingRunsUntilSync) {
  Tensor a = from_vector<float>({1, 2, 3}, {3});
  int64_t syncs = counter("Syncs");
  Tensor b = a * a + 1.5;
  EXPECT_TRUE(b.is_pending());
  EXPECT_EQ(counter("Syncs"), syncs);
  lazax::sync();
  EXPECT_FALSE(b.is_pending());
  EXPECT_EQ(counter("Syncs"), syncs + 1);
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{2.5f, 5.5f, 10.5f}));
}

TEST(Lazy, IdenticalStepsCompileOnce) {
  Tensor w = from_vector<float>({0.5f, -0.25f, 1.0f, 2.0f}, {4});
  Tensor x = from_vector<float>({1, 2, 3, 4}, {4});
  step(w, x, 0.1);
  lazax::sync();  // warm: may compile
  int64_t uncached = counter("UncachedCompile"), cached = counter("CachedCompile");
  for (int i = 0; i < 5; ++i) {
    // A learning-rate schedule: the host scalar changes every step and must not recompile.
    step(w, x, 0.1 / (i + 1));
    lazax::sync();
  }
  EXPECT_EQ(counter("UncachedCompile"), uncached);
  EXPECT_EQ(counter("CachedCompile"), cached + 5);
}

TEST(Lazy, ResultsEqualOpByOp) {
  Tensor w1 = from_vector<float>({0.5f, -0.25f, 1.0f, 2.0f}, {4});
  Tensor w2 = w1.clone();
  lazax::sync();
  Tensor x = from_vector<float>({1, 2, 3, 4}, {4});
  for (int i = 0; i < 3; ++i) step(w1, x, 0.1);
  lazax::sync();
  for (int i = 0; i < 3; ++i) {  // the same, with a sync after every op
    Tensor a = x * w2;
    lazax::sync();
    Tensor b = add(a, x);
    lazax::sync();
    Tensor y = tanh(b);
    lazax::sync();
    Tensor g = y * 2.0;
    lazax::sync();
    Tensor u = g * 0.1;
    lazax::sync();
    w2.sub_(u);
    lazax::sync();
  }
  EXPECT_EQ(w1.to_vector<float>(), w2.to_vector<float>());
}

TEST(Lazy, ChangedShapeRecompilesAndDebugNamesIt) {
  start_with_an_empty_compile_cache();
  auto run = [](int64_t n) {
    Tensor x = ones({n, 3});
    Tensor y = exp(x) * 3.0;
    lazax::sync();
  };
  run(7);
  DebugOn debug;
  int64_t uncached = counter("UncachedCompile");
  testing::internal::CaptureStderr();
  run(9);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(counter("UncachedCompile"), uncached + 1);
  EXPECT_NE(err.find("cache miss"), std::string::npos) << err;
  EXPECT_NE(err.find("f32[9,3]"), std::string::npos) << err;
}

TEST(Lazy, ChangedInputShapeIsNamedAsAnInput) {
  start_with_an_empty_compile_cache();
  auto run = [](int64_t n) {
    Tensor x = Tensor(Literal::zeros({DType::f32, Shape({n, 2})}));
    Tensor y = sin(x) + 2.5;
    lazax::sync();
  };
  run(5);
  DebugOn debug;
  testing::internal::CaptureStderr();
  run(6);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("shape changed: was f32[5,2], now f32[6,2]"), std::string::npos) << err;
}

TEST(Lazy, ItemInALoopCountsGraphBreaksWithLocation) {
  Tensor w = from_vector<float>({1.0f}, {1});
  int64_t breaks = counter("GraphBreaks");
  double total = 0;
  for (int i = 0; i < 4; ++i) {
    w = w * 2.0;
    total += w.item();  // each read of a pending value is a graph break
  }
  EXPECT_EQ(total, 2 + 4 + 8 + 16);
  EXPECT_EQ(counter("GraphBreaks"), breaks + 4);
  bool found = false;
  for (const auto& [where, n] : metrics::graph_breaks())
    if (where.find("lazy_test.cc") != std::string::npos && n >= 4) found = true;
  EXPECT_TRUE(found);
  EXPECT_NE(metrics::report().find("lazy_test.cc"), std::string::npos);
  // Reading a materialized value is not a break.
  w.item();
  EXPECT_EQ(counter("GraphBreaks"), breaks + 4);
}

TEST(Lazy, DeadTensorsAreNotComputed) {
  Tensor x = from_vector<float>({1, 2}, {2});
  lazax::sync();
  int64_t nodes = counter("SyncedNodes");
  {
    Tensor dead = exp(exp(exp(x)));  // dropped before sync
  }
  Tensor live = x * 3.0;
  lazax::sync();
  // mul and its scalar broadcast only
  EXPECT_LE(counter("SyncedNodes") - nodes, 2);
  EXPECT_EQ(live.to_vector<float>(), (std::vector<float>{3, 6}));
}

TEST(Lazy, LongLoopIsCutAutomatically) {
  auto& opts = Context::get().options();
  int64_t old = opts.max_pending_nodes;
  opts.max_pending_nodes = 50;
  int64_t cuts = counter("GraphSizeCuts");
  Tensor x = from_vector<float>({1.0f}, {1});
  for (int i = 0; i < 200; ++i) x = x + 1.0;
  EXPECT_LE(live_graph_nodes(), 60);
  EXPECT_GT(counter("GraphSizeCuts"), cuts);
  EXPECT_EQ(x.item(), 201.0);
  opts.max_pending_nodes = old;
}

// A chain as long as the default graph-size cut allows is freed (dropped unsynced) and synced
// without running out of stack: neither the walk nor the nodes' destruction may recurse per node.
TEST(Lazy, DeepGraphIsFreedAndSyncedWithoutDeepRecursion) {
  const int n = static_cast<int>(Context::get().options().max_pending_nodes) - 1000;
  Tensor y = from_vector<float>({1.0f}, {1});
  {
    Tensor x = from_vector<float>({0.0f}, {1});
    for (int i = 0; i < n; ++i) x = x + y;
  }  // dropped: the whole chain dies here
  EXPECT_LT(live_graph_nodes(), 100);
  Tensor x = from_vector<float>({0.0f}, {1});
  for (int i = 0; i < n; ++i) x = x + y;
  EXPECT_EQ(x.item(), static_cast<double>(n));
}

// The same for a long autograd tape (each entry holds the one before it).
TEST(Lazy, DeepTapeIsFreedWithoutDeepRecursion) {
  const int n = static_cast<int>(Context::get().options().max_pending_nodes) - 1000;
  Tensor w = from_vector<float>({1.0f}, {1});
  w.requires_grad_();
  {
    Tensor x = w;
    for (int i = 0; i < n; ++i) x = x * w;
  }
  EXPECT_LT(live_graph_nodes(), 100);
}

TEST(Lazy, DumpDirGetsProgramAndDot) {
  namespace fs = std::filesystem;
  // A directory of this process and test run alone (ctest runs tests in parallel, and other
  // builds' tests may run at the same time).
  static int runs = 0;
  fs::path dir = fs::temp_directory_path() /
                 ("lazax_dump_test_" + std::to_string(::getpid()) + "_" + std::to_string(runs++));
  fs::remove_all(dir);
  start_with_an_empty_compile_cache();  // programs are dumped when they are compiled
  Options o = Context::get().options();
  o.dump_dir = dir.string();
  Context::get().set_options(o);
  Tensor x = ones({2, 5});
  Tensor y = log1p(x) * 7.25;
  lazax::sync();
  o.dump_dir.clear();
  Context::get().set_options(o);
  bool lzir = false, dot = false;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".lzir") lzir = true;
    if (e.path().extension() == ".dot") dot = true;
  }
  EXPECT_TRUE(lzir);
  EXPECT_TRUE(dot);
  fs::remove_all(dir);
}

TEST(Lazy, InPlaceRebindsEveryCopyOfTheHandle) {
  Tensor a = from_vector<float>({1, 2}, {2});
  Tensor alias = a;
  Tensor derived = a * 1.5;  // a new value: does not see later writes
  a.add_(10.0);
  EXPECT_EQ(alias.to_vector<float>(), (std::vector<float>{11, 12}));
  EXPECT_EQ(derived.to_vector<float>(), (std::vector<float>{1.5f, 3}));
  a.zero_();
  EXPECT_EQ(alias.to_vector<float>(), (std::vector<float>{0, 0}));
}

TEST(Lazy, ErrorsLeaveTensorsUsable) {
  Tensor a = from_vector<float>({1, 2, 3}, {3});
  Tensor b = from_vector<float>({1, 2}, {2});
  Tensor c = a * 2.0;
  try {
    Tensor d = a + b;
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[add]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[3]"), std::string::npos) << e.what();
  }
  try {
    a.add_(b);
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError&) {
  }
  EXPECT_THROW(where(a, a, a), DTypeError);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_THROW(Tensor().item(), ValueError);
}

TEST(Lazy, GraphsThatDifferOnlyInWiringGetTheirOwnPrograms) {
  // The same ops on the same leaves, wired differently below the root: a node's hash covers the
  // node by itself, so the sync key must tell the graphs apart by their operand lists.
  Tensor a = from_vector<float>({1, 2}, {2}), b = from_vector<float>({4, 5}, {2});
  start_with_an_empty_compile_cache();
  auto run = [&](bool swap) {
    Tensor r = tanh(a - b) * (swap ? b / a : a / b) + a;
    lazax::sync();
    return r.to_vector<float>();
  };
  int64_t uncached = counter("UncachedCompile");
  std::vector<float> plain = run(false), swapped = run(true), again = run(false);
  EXPECT_EQ(counter("UncachedCompile"), uncached + 2) << "two graphs, two programs";
  const float av[] = {1, 2}, bv[] = {4, 5};
  for (size_t i = 0; i < 2; ++i) {
    float t = std::tanh(av[i] - bv[i]);
    EXPECT_NEAR(plain[i], t * (av[i] / bv[i]) + av[i], 1e-5) << i;
    EXPECT_NEAR(swapped[i], t * (bv[i] / av[i]) + av[i], 1e-5) << i;
    EXPECT_EQ(again[i], plain[i]) << i;
  }
}
