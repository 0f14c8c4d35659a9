// What the tape saves of an op's outputs: nothing for ops whose rules never read them
// (ir/op.h kRulesSkipOutputs), the graph value for the others (GradNode::deferred), given a
// handle only when a rule reads it or a sync comes before the backward. The gradients must not
// depend on which: with or without a sync between forward and backward, with the graph cut
// every few nodes, with retain_graph, after the output is updated in place, and of second order.
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/graph.h"
#include "lazax/trace/lazy_value.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

// A loss through ops whose rules read their outputs (exp, tanh, logistic, div, rsqrt, amax)
// and ops whose rules do not (add, mul, matmul, transpose, reshape, sum).
Tensor loss_of(const Tensor& x, const Tensor& w) {
  Tensor h = matmul(x, w);  // [2, 3]
  Tensor a = exp(h * 0.1) + tanh(h) * sigmoid(h);
  Tensor b = a / (rsqrt(a * a + 1.0) + 2.0);
  Tensor c = transpose(b, 0, 1).reshape({6});
  return c.sum() + amax(b, {1}).sum();
}

struct Grads {
  std::vector<double> x, w;
};

Grads grads(const Tensor& x0, const Tensor& w0, bool sync_between) {
  Tensor x = x0.detach().requires_grad_();
  Tensor w = w0.detach().requires_grad_();
  Tensor loss = loss_of(x, w);
  if (sync_between) loss.item();  // the saved outputs become pending values and are computed
  loss.backward();
  return {x.grad().to_vector<double>(), w.grad().to_vector<double>()};
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12) << i;
}

}  // namespace

TEST(SavedOutputs, GradientsWithAndWithoutASyncBetweenForwardAndBackward) {
  Tensor x = rnd({2, 4}, 1), w = rnd({4, 3}, 2);
  Grads plain = grads(x, w, false);
  Grads synced = grads(x, w, true);
  expect_near(synced.x, plain.x);
  expect_near(synced.w, plain.w);
  // Against finite differences and the tape's second order (test_util's checker).
  expect_grads([](const Tensors& in) { return Tensors{loss_of(in[0], in[1])}; }, {x, w}, 2);
}

TEST(SavedOutputs, GradientsWithTheGraphCutEveryFewNodes) {
  Tensor x = rnd({2, 4}, 3), w = rnd({4, 3}, 4);
  Grads want = grads(x, w, false);
  const int64_t cuts_before = metrics::counter("GraphSizeCuts").get();
  int64_t old = Context::get().options().max_pending_nodes;
  Context::get().options().max_pending_nodes = live_graph_nodes() + 4;
  Grads got;
  try {
    got = grads(x, w, false);
  } catch (...) {
    Context::get().options().max_pending_nodes = old;
    throw;
  }
  Context::get().options().max_pending_nodes = old;
  EXPECT_GT(metrics::counter("GraphSizeCuts").get() - cuts_before, 5);
  expect_near(got.x, want.x);
  expect_near(got.w, want.w);
}

TEST(SavedOutputs, RetainGraphRunsTheBackwardTwice) {
  Tensor x = rnd({2, 4}, 5).requires_grad_(), w = rnd({4, 3}, 6).requires_grad_();
  Tensor loss = loss_of(x, w);
  loss.backward(Tensor(), /*retain_graph=*/true);
  std::vector<double> once = x.grad().to_vector<double>();
  lazax::sync();  // the retained entries' saved outputs are materialized here
  loss.backward();
  std::vector<double> twice = x.grad().to_vector<double>();
  ASSERT_EQ(once.size(), twice.size());
  for (size_t i = 0; i < once.size(); ++i) EXPECT_NEAR(twice[i], 2 * once[i], 1e-12) << i;
}

TEST(SavedOutputs, AnOutputUpdatedInPlaceAfterTheForwardKeepsItsSavedValue) {
  // y = exp(x): the rule reads the saved y; updating y in place afterwards does not change the
  // gradient of what was computed (d/dx sum(exp(x)) = exp(x)).
  Tensor x0 = rnd({5}, 7);
  Tensor x = x0.detach().requires_grad_();
  Tensor y = exp(x);
  Tensor loss = y.sum();
  {
    NoGrad off;
    y.add_(100.0);
  }
  loss.backward();
  std::vector<double> g = x.grad().to_vector<double>();
  std::vector<double> want = exp(x0).to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-12) << i;
}

TEST(SavedOutputs, TheTapeHoldsNoHandlesForOutputsUntilASync) {
  // Handles alive during the forward: the tape adds none for the saved outputs (before, it made
  // a detached copy of every taped op's output).
  Tensor x = rnd({2, 4}, 8).requires_grad_(), w = rnd({4, 3}, 9).requires_grad_();
  lazax::sync();
  size_t before = num_pending_values();
  Tensor h = exp(matmul(x, w));  // two ops: two pending results, nothing more
  EXPECT_EQ(num_pending_values(), before + 2);
  // A sync gives exp's saved output a handle (it must be computed); matmul saved none.
  Context::get().probe();
  EXPECT_EQ(num_pending_values(), before + 3);
  h.sum().backward();
  lazax::sync();
  EXPECT_EQ(x.grad().shape(), Shape({2, 4}));
}
