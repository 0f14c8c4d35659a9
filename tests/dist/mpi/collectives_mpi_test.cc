// Run under `mpirun -np 2` (ctest dist.mpi_collectives): every collective and its gradient on
// each rank against the one-process computation. Each rank knows every rank's input (a function of
// the rank), so it computes what its result must be with plain tensor ops, no communication: the
// value of the op for this rank, and the gradient of the sum over ranks of each rank's loss.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "lazax/core/metrics.h"
#include "lazax/lazax.h"
#include "lazax/runtime/context.h"

namespace lazax {
namespace {

int R() { return dist::rank(); }
int N() { return dist::world_size(); }

// Rank r's input: [4, 6] values that differ per rank and per element (ties only where asked).
Tensor input_of(int r) {
  std::vector<float> v(24);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(0.7F * static_cast<float>(i) + 1.3F * static_cast<float>(r)) + 0.1F * r;
  return from_vector<float>(v, {4, 6});
}
// Rank r's loss is sum(w_r * tanh(op(x_r))), w_r of the op's result shape.
Tensor weight_of(int r, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5F + 0.25F * static_cast<float>((i + r) % 5);
  return from_vector<float>(v, shape);
}

struct Case {
  std::string name;
  std::function<Tensor(const Tensor&)> op;                         // on this rank's input
  std::function<Tensor(const std::vector<Tensor>&, int)> emulate;  // rank r's result from all
  bool differentiable = true;
};

Tensor stack_reduce(const std::vector<Tensor>& xs, const std::string& how) {
  Tensor s = stack(xs, 0);
  if (how == "sum") return s.sum({0});
  if (how == "mean") return s.sum({0}) / static_cast<double>(xs.size());
  if (how == "max") return s.max(0);
  return s.min(0);
}

std::vector<Case> cases() {
  const int n = N();
  return {
      {"psum", [](const Tensor& x) { return psum(x); },
       [](const std::vector<Tensor>& xs, int) { return stack_reduce(xs, "sum"); }},
      {"pmean", [](const Tensor& x) { return pmean(x); },
       [](const std::vector<Tensor>& xs, int) { return stack_reduce(xs, "mean"); }},
      {"pmax", [](const Tensor& x) { return pmax(x); },
       [](const std::vector<Tensor>& xs, int) { return stack_reduce(xs, "max"); }},
      {"pmin", [](const Tensor& x) { return pmin(x); },
       [](const std::vector<Tensor>& xs, int) { return stack_reduce(xs, "min"); }},
      {"all_gather_axis0", [](const Tensor& x) { return all_gather(x, 0); },
       [](const std::vector<Tensor>& xs, int) { return cat(xs, 0); }},
      {"all_gather_axis1", [](const Tensor& x) { return all_gather(x, 1); },
       [](const std::vector<Tensor>& xs, int) { return cat(xs, 1); }},
      {"reduce_scatter_axis0", [](const Tensor& x) { return psum_scatter(x, 0); },
       [n](const std::vector<Tensor>& xs, int r) {
         return narrow(stack_reduce(xs, "sum"), 0, r * 4 / n, 4 / n);
       }},
      {"reduce_scatter_mean_axis1",
       [](const Tensor& x) { return reduce_scatter(x, 1, ReduceKind::mean); },
       [n](const std::vector<Tensor>& xs, int r) {
         return narrow(stack_reduce(xs, "mean"), 1, r * 6 / n, 6 / n);
       }},
      {"all_to_all", [](const Tensor& x) { return all_to_all(x, 0, 1); },
       [n](const std::vector<Tensor>& xs, int r) {
         std::vector<Tensor> parts;
         for (const Tensor& x : xs) parts.push_back(narrow(x, 0, r * 4 / n, 4 / n));
         return cat(parts, 1);
       }},
      {"broadcast_from_last", [n](const Tensor& x) { return broadcast_from(x, n - 1); },
       [n](const std::vector<Tensor>& xs, int) { return xs[static_cast<size_t>(n - 1)] + 0.0; }},
  };
}

class Collectives : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Context::get().set_backend(GetParam()); }
  void TearDown() override { Context::get().set_backend("cpu"); }
};

void expect_near(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << what << " at " << i;
}

TEST_P(Collectives, EachOpEqualsTheOneProcessComputation) {
  ASSERT_EQ(N(), 2) << "run under mpirun -np 2";
  std::vector<Tensor> xs;
  for (int r = 0; r < N(); ++r) xs.push_back(input_of(r));
  for (const Case& c : cases()) {
    Tensor y = c.op(input_of(R()));
    expect_near(y.to_vector<float>(), c.emulate(xs, R()).to_vector<float>(), c.name);
  }
}

TEST_P(Collectives, EachGradientEqualsTheOneProcessGradient) {
  for (const Case& c : cases()) {
    // Distributed: this rank's loss; its gradient is the total loss's, by the rules' convention.
    Tensor x = input_of(R()).requires_grad_();
    Tensor y = c.op(x);
    (weight_of(R(), y.sizes()) * tanh(y)).sum().backward();
    // One process: every rank's input as a leaf, the total loss over ranks.
    std::vector<Tensor> xs;
    for (int r = 0; r < N(); ++r) xs.push_back(input_of(r).requires_grad_());
    Tensor total = zeros({}, DType::f32);
    for (int r = 0; r < N(); ++r) {
      Tensor yr = c.emulate(xs, r);
      total = total + (weight_of(r, yr.sizes()) * tanh(yr)).sum();
    }
    total.backward();
    // (No gradient reaches an input the total does not depend on: rank 0's, for a broadcast
    // from rank 1.)
    Tensor want = xs[static_cast<size_t>(R())].grad();
    if (!want.defined()) want = zeros({4, 6});
    expect_near(x.grad().to_vector<float>(), want.to_vector<float>(), c.name + " gradient");
  }
}

TEST_P(Collectives, HalfPrecisionReducesInF32) {
  Tensor x = input_of(R()).to(DType::bf16);
  Tensor want =
      (input_of(0).to(DType::bf16).to(DType::f32) + input_of(1).to(DType::bf16).to(DType::f32))
          .to(DType::bf16);
  Tensor got = psum(x);
  EXPECT_EQ(got.dtype(), DType::bf16);
  expect_near(got.to(DType::f32).to_vector<float>(), want.to(DType::f32).to_vector<float>(),
              "bf16 psum");
}

TEST_P(Collectives, AxisIndexIsTheRank) {
  EXPECT_EQ(static_cast<int>(axis_index().item()), R());
  EXPECT_EQ(static_cast<int>(axis_index(1).item()), 0);  // groups of one rank each
}

TEST_P(Collectives, AnAssumePureFunctionCarriesItsCollectives) {
  auto f = assume_pure([](const Tensor& x) { return tanh(psum(x * x)).sum(); });
  Tensor x = input_of(R()).requires_grad_();
  f(x).backward();
  // d/dx_r sum_q tanh(sum_p x_p^2) = 2 x_r * sum_q (1 - tanh^2) = 2 x_r * N * (1 - tanh^2).
  Tensor s = input_of(0) * input_of(0) + input_of(1) * input_of(1);
  Tensor want = 2.0 * input_of(R()) * static_cast<double>(N()) * (1.0 - tanh(s) * tanh(s));
  expect_near(x.grad().to_vector<float>(), want.to_vector<float>(), "pure psum gradient");
}

TEST_P(Collectives, RanksThatDisagreeRaiseOnEveryRankBeforeDataMoves) {
  Tensor x = input_of(R());
  try {
    Tensor y = R() == 0 ? psum(x) : all_gather(x, 0);
    sync();
    ADD_FAILURE() << "no error";
  } catch (const DistError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("disagree"), std::string::npos) << m;
    EXPECT_NE(m.find("all_reduce of f32[4,6] sum"), std::string::npos) << m;
    EXPECT_NE(m.find("all_gather of f32[4,6]"), std::string::npos) << m;
  }
  // A shape that differs is caught the same way, and the ranks go on in step afterwards.
  try {
    Tensor y = psum(R() == 0 ? x : narrow(x, 0, 0, 3));
    sync();
    ADD_FAILURE() << "no error";
  } catch (const DistError& e) {
    EXPECT_NE(std::string(e.what()).find("f32[3,6]"), std::string::npos) << e.what();
  }
  EXPECT_EQ(psum(ones({}, DType::f32)).item(), 2.0);
}

TEST_P(Collectives, StartedCollectivesGiveTheBlockingResultsAfterTheWorkRecordedBeforeThem) {
  // Work recorded before the collectives (as data parallel records the backward before its
  // all_reduces): the cpu backend starts the all_reduce and the reduce_scatter first, runs the
  // matmuls while they are in flight and waits at the adds that read them.
  Tensor x = input_of(R());
  Tensor w = weight_of(R(), {6, 6}) / 6.0;
  Tensor h = x;
  for (int i = 0; i < 4; ++i) h = matmul(h, w);
  Tensor h_half = narrow(h, 0, R() * 4 / N(), 4 / N());
  const int64_t started = metrics::counter("DistStarted").get();
  Tensor r = psum(x) + h;
  Tensor s = psum_scatter(x, 0) + h_half;
  sync();
  std::vector<Tensor> xs;
  for (int q = 0; q < N(); ++q) xs.push_back(input_of(q));
  Tensor sum = stack_reduce(xs, "sum");
  expect_near(r.to_vector<float>(), (sum + h).to_vector<float>(), "psum");
  expect_near(s.to_vector<float>(),
              (narrow(sum, 0, R() * 4 / N(), 4 / N()) + h_half).to_vector<float>(), "psum_scatter");
  // The interpreter runs each collective where it stands; the cpu backend started both.
  EXPECT_EQ(metrics::counter("DistStarted").get() - started,
            GetParam() == "cpu" ? int64_t{2} : int64_t{0});
}

INSTANTIATE_TEST_SUITE_P(Backends, Collectives, ::testing::Values("cpu", "reference"));

}  // namespace
}  // namespace lazax
