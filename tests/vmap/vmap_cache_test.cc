// The batched program of a call (vmap of an assume_pure function) is traced once per signature
// (PureTraces): a second vmap call with the same signature traces only the example's program, a
// new batch size or batched operand traces it again, vmap objects made anew per call share it,
// and under assume_pure the whole vmapped program is traced once per signature. And
// vmap of vmap over while_loop, scan and cond equals the function run on every (i, j) example,
// on the reference interpreter and on cpu.
#include <gtest/gtest.h>

#include <cmath>

#include "lazax/autodiff/function_ad.h"
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"
#include "vmap_test_util.h"

namespace lazax::vmap_test {
namespace {

int64_t traces() { return metrics::counter("PureTraces").get(); }

void expect_near(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  ASSERT_EQ(got.type_str(), want.type_str());
  std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << "at " << i;
}

// f on each row of xs, stacked.
template <class F>
Tensor loop(F f, const Tensor& xs) {
  std::vector<Tensor> r;
  for (int64_t i = 0; i < xs.size(0); ++i) r.push_back(f(xs[i]));
  return stack(r, 0);
}

// Each test starts from empty program caches: a structurally equal callee traced by an earlier
// test (or an earlier --gtest_repeat round) would otherwise be found cached.
class VmapCache : public ::testing::Test {
 protected:
  void SetUp() override { autodiff::clear_program_caches(); }
};

TEST_F(VmapCache, TracedOncePerSignature) {
  // A traced program called as one node (what assume_pure records), so that PureTraces counts
  // only vmap's traces, not the callee's own.
  FunctionPtr fn = trace([](const Tensor& x) { return (x * x - x).tanh(); }, randn({4}));
  auto pure = [&](const Tensor& x) { return call(fn, {x})[0]; };
  auto v = vmap(pure);
  Tensor x8 = randn({8, 4}), x16 = randn({16, 4});
  int64_t t0 = traces();
  Tensor a = v(x8);
  // The example's program and the callee's batched program.
  EXPECT_EQ(traces() - t0, 2);
  expect_near(a, loop(pure, x8));
  t0 = traces();
  v(randn({8, 4}));
  // Only the example's program (one call node): the batched program of the call is cached.
  EXPECT_EQ(traces() - t0, 1) << "the batched program traced again for the same signature";
  // A new batch size: a new entry.
  t0 = traces();
  expect_near(v(x16), loop(pure, x16));
  EXPECT_EQ(traces() - t0, 2);
  t0 = traces();
  v(x16);
  v(x8);
  EXPECT_EQ(traces() - t0, 2);
  // Under assume_pure (or jit) the whole vmapped program is cached: nothing traced again.
  auto outer = assume_pure([&](const Tensor& x) { return v(x); });
  t0 = traces();
  expect_near(outer(x8), a);
  EXPECT_EQ(traces() - t0, 2);
  t0 = traces();
  outer(x8);
  EXPECT_EQ(traces() - t0, 0);
  expect_near(outer(x16), loop(pure, x16));
  EXPECT_EQ(traces() - t0, 2);
}

TEST_F(VmapCache, CalleeBatchedProgramSharedAcrossVmapObjects) {
  FunctionPtr fn =
      trace([](const Tensor& x, const Tensor& y) { return (x * y).sum(); }, randn({3}), randn({3}));
  auto pure = [&](const Tensor& x, const Tensor& y) { return call(fn, {x, y})[0]; };
  Tensor xs = randn({5, 3}), y = randn({3});
  auto fresh = [&] { return vmap(pure, {.in_axes = {0, std::nullopt}})(xs, y); };
  fresh();
  int64_t t0 = traces();
  Tensor r = fresh();
  // Only the new object's example trace: the callee's batched program is cached.
  EXPECT_EQ(traces() - t0, 1);
  expect_near(r, loop([&](const Tensor& x) { return pure(x, y); }, xs));
  // Other in_axes: the batch at axis 1 (moved to 0, the same batched call), or y batched too
  // (another batched program of the callee).
  t0 = traces();
  Tensor r1 = vmap(pure, {.in_axes = {1, std::nullopt}})(xs.permute({1, 0}), y);
  EXPECT_EQ(traces() - t0, 1);
  expect_near(r1, r);
  Tensor ys = randn({5, 3});
  t0 = traces();
  Tensor r2 = vmap(pure)(xs, ys);
  EXPECT_EQ(traces() - t0, 2);
  std::vector<Tensor> want;
  for (int64_t i = 0; i < 5; ++i) want.push_back(pure(xs[i], ys[i]));
  expect_near(r2, stack(want, 0));
}

TEST_F(VmapCache, GradientsThroughTheCachedProgram) {
  Tensor w = randn({3}).requires_grad_(true);
  auto pure = assume_pure([&](const Tensor& x) { return (x * w).tanh().sum(); });
  auto v = vmap(pure);
  Tensor xs = randn({6, 3});
  // The second pass reuses the cached batched program and its VJP.
  for (int k = 0; k < 2; ++k) {
    zero_grad({w});
    v(xs).sum().backward();
    Tensor want = ((1.0 - (xs * w).tanh() * (xs * w).tanh()) * xs).sum({0});
    expect_near(w.grad(), want.detach());
  }
}

class VmapNested : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    saved_ = Context::get().backend().name();
    Context::get().set_backend(GetParam());
  }
  void TearDown() override { Context::get().set_backend(saved_); }
  std::string saved_;
};

// vmap(vmap(f)) over xs [3, 4, ...] against f on every xs[i][j], stacked over both axes; the
// inner vmap's batch is at `inner_axis` of each outer example.
template <class F>
void expect_nested(F f, const Tensor& xs, int64_t inner_axis = 0) {
  Tensor got = vmap(vmap(f, {.in_axes = {inner_axis}}))(xs);
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < xs.size(0); ++i) {
    Tensor xi = xs[i];
    std::vector<Tensor> cols;
    for (int64_t j = 0; j < xi.size(inner_axis); ++j) cols.push_back(f(xi.select(inner_axis, j)));
    rows.push_back(stack(cols, 0));
  }
  expect_near(got, stack(rows, 0));
}

Tensor doubling_while(const Tensor& e) {
  // A per-example trip count: doubles until the sum passes 9.
  return while_loop([](const Tensors& c) { return Tensors{lt(c[0].sum(), scalar_tensor(9.0))}; },
                    [](const Tensors& c) {
                      return Tensors{c[0] * 2.0, c[1] + 1.0};
                    },
                    Tensors{e, scalar_tensor(0.0)})[0];
}

TEST_P(VmapNested, WhileLoop) {
  Tensor xs = rand({3, 4, 2}) + 0.1;
  expect_nested(doubling_while, xs);
  expect_nested(doubling_while, xs.permute({0, 2, 1}), 1);
  // An unbatched carry that the body makes batched (the counter), and a loop with a fixed trip
  // count (an unbatched predicate).
  expect_nested(
      [](const Tensor& e) {
        Tensors r =
            while_loop([](const Tensors& c) { return Tensors{lt(c[1], scalar_tensor(3.0))}; },
                       [](const Tensors& c) {
                         return Tensors{c[0].sin() + c[1], c[1] + 1.0};
                       },
                       Tensors{e, scalar_tensor(0.0)});
        return r[0] * r[1];
      },
      xs);
}

TEST_P(VmapNested, Scan) {
  Tensor xs = randn({3, 4, 5, 2});
  auto cumulative = [](const Tensor& e) {
    auto [c, ys] = scan(
        [](const Tensor& c, const Tensor& x) {
          Tensor n = (c * 0.5 + x).tanh();
          return std::pair{n, n * c};
        },
        zeros({2}), e);
    return ys + c;
  };
  expect_nested(cumulative, xs);
  expect_nested(cumulative, xs.permute({0, 2, 1, 3}), 1);
}

TEST_P(VmapNested, Cond) {
  Tensor xs = randn({3, 4, 2});
  // A per-example predicate (a select of both branches at both levels).
  expect_nested(
      [](const Tensor& e) {
        return cond(
            gt(e.sum(), scalar_tensor(0.0)), [](const Tensors& o) { return Tensors{o[0].exp()}; },
            [](const Tensors& o) { return Tensors{-o[0] * 3.0}; }, Tensors{e})[0];
      },
      xs);
  // A predicate shared by every example: one cond of the batched branches.
  Tensor flag = scalar_tensor(1.0);
  expect_nested(
      [&](const Tensor& e) {
        return cond(
            gt(flag, scalar_tensor(0.0)), [](const Tensors& o) { return Tensors{o[0].cos()}; },
            [](const Tensors& o) { return Tensors{o[0]}; }, Tensors{e})[0];
      },
      xs);
}

INSTANTIATE_TEST_SUITE_P(Backends, VmapNested, ::testing::Values("reference", "cpu"));

}  // namespace
}  // namespace lazax::vmap_test
