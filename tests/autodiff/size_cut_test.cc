// A size-limit cut (a sync when the pending graph grows past max_pending_nodes) may come in the
// middle of any op or VJP rule: it frees the pending graph. Rules and callers that hold a tensor's
// shape by reference across the ops they record must see it unchanged, and the gradients must be
// those computed without cuts. (A reference into the freed graph is reported by the sanitizer
// build, ./lazax.sh asan.)
#include <algorithm>

#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/graph.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

// max_pending_nodes set a few nodes above what is alive now, for one scope.
class TinyGraphLimit {
 public:
  explicit TinyGraphLimit(int64_t headroom) : old_(Context::get().options().max_pending_nodes) {
    Context::get().options().max_pending_nodes = live_graph_nodes() + headroom;
  }
  ~TinyGraphLimit() { Context::get().options().max_pending_nodes = old_; }
  TinyGraphLimit(const TinyGraphLimit&) = delete;
  TinyGraphLimit& operator=(const TinyGraphLimit&) = delete;

 private:
  int64_t old_;
};

int64_t cuts() { return metrics::counter("GraphSizeCuts").get(); }

// d/dx of a loss through broadcast, concatenate, gather (embedding) and reductions, whose VJP
// rules read input shapes while recording several ops.
std::vector<double> grads_of(const Tensor& x0, const Tensor& w0, const Tensor& ids) {
  Tensor x = x0.detach().requires_grad_();
  Tensor w = w0.detach().requires_grad_();
  Tensor y = broadcast_to(x * 2.0, {4, 3});
  Tensor z = cat({y, y * y}, 0);  // [8, 3]
  Tensor e = embedding(w, ids);   // [5, 3]
  Tensor loss = sum(z) + amax(z, {1}).sum() + (e * e).sum() + max(e, 0).sum();
  loss.backward();
  std::vector<double> g = x.grad().to_vector<double>();
  std::vector<double> gw = w.grad().to_vector<double>();
  g.insert(g.end(), gw.begin(), gw.end());
  return g;
}

}  // namespace

TEST(SizeCut, AShapeHeldByReferenceSurvivesASync) {
  Tensor a = rnd({2, 3}, 1) * 2.0;  // pending
  const Shape& s = a.shape();
  lazax::sync();  // frees the graph a was pending in
  // New nodes of other shapes, made from the blocks just freed.
  std::vector<Tensor> others;
  for (int i = 0; i < 20; ++i) others.push_back(rnd({5, 7}, 2) + static_cast<double>(i));
  EXPECT_EQ(s, Shape({2, 3}));
  EXPECT_EQ(a.shape(), Shape({2, 3}));
}

TEST(SizeCut, GradientsThroughRulesCutEveryFewNodesEqualThoseWithoutCuts) {
  Tensor x = rnd({3}, 3);
  Tensor w = rnd({6, 3}, 4);
  Tensor ids = from_vector<int64_t>({0, 5, 2, 2, 4}, {5});
  std::vector<double> want = grads_of(x, w, ids);
  int64_t before = cuts();
  std::vector<double> got;
  {
    TinyGraphLimit limit(3);
    got = grads_of(x, w, ids);
  }
  EXPECT_GT(cuts() - before, 10) << "the limit should cut the graph inside the rules";
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "grad " << i;
}
