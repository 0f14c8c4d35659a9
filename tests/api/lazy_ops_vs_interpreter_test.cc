// A small training loop (embedding, matmul, relu, softmax, cross_entropy, a hand-written
// gradient step) run lazily as one graph per step must give bit-identical results to the same
// code with a sync after every op, both on the reference interpreter: the point is that
// recording, graph building, caching and replay do not change any value. On the cpu backend
// the two agree to f32 rounding only: a graph lets it fold a transpose into a GEMM (oneDNN's
// sgemm with a transposed operand adds in another order than after a copy), as PyTorch's
// `a.t() @ b` and `a.t().contiguous() @ b` may differ in the last bit.
#include <algorithm>

#include "api_test_util.h"
#include "lazax/api/random.h"
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"

using namespace lazax;
using namespace lazax::testing;

namespace {

constexpr int64_t kVocab = 11, kDim = 6, kHidden = 8, kClasses = 5, kBatch = 7;

struct Params {
  Tensor emb, w1, b1, w2;
};

// Fresh copies of the same initial values (materialized, so both runs start from data).
Params init() {
  Generator g(2024);
  Params p{g.normal({kVocab, kDim}), g.normal({kDim, kHidden}) * 0.5, g.uniform({kHidden}) - 0.5,
           g.normal({kHidden, kClasses}) * 0.5};
  lazax::sync();
  return p;
}

Params copy(const Params& p) {
  return {p.emb.detach(), p.w1.detach(), p.b1.detach(), p.w2.detach()};
}

// One step; `op` is called on every intermediate result (the eager run syncs there).
template <class OnOp>
std::vector<Tensor> step(Params& p, const Tensor& ids, const Tensor& targets, double lr, OnOp op) {
  Tensor e = op(embedding(p.emb, ids));                 // [B, D]
  Tensor h = op(relu(op(op(matmul(e, p.w1)) + p.b1)));  // [B, H]
  Tensor logits = op(matmul(h, p.w2));                  // [B, C]
  Tensor loss = op(cross_entropy(logits, targets));
  Tensor probs = op(softmax(logits, 1));
  // d loss / d logits = (softmax - onehot) / B; d loss / d w2 = h^T that.
  Tensor classes = op(arange(kClasses).unsqueeze(0));
  Tensor onehot = op(op(eq(classes, op(targets.unsqueeze(1)))).to(DType::f32));
  Tensor dlogits = op(op(probs - onehot) / static_cast<double>(kBatch));
  Tensor dw2 = op(matmul(op(h.t()), dlogits));
  Tensor dh = op(op(matmul(dlogits, op(p.w2.t()))) * op(op(h > 0.0).to(DType::f32)));
  Tensor db1 = op(dh.sum({0}));
  Tensor dw1 = op(matmul(op(e.t()), dh));
  p.w2.sub_(op(dw2 * lr));
  op(p.w2);
  p.b1.sub_(op(db1 * lr));
  op(p.b1);
  p.w1.sub_(op(dw1 * lr));
  op(p.w1);
  Tensor log_max_prob = op(op(logits.amax({1})) - op(logsumexp(logits, {1})));
  Tensor stats = op(stack({op(log_max_prob.mean()), op(op(probs.max(1)).sum())}));
  return {loss, stats};
}

Tensor batch_ids(int s) {
  std::vector<int64_t> v;
  for (int i = 0; i < kBatch * 2; ++i) v.push_back((i * 7 + s * 3) % kVocab);
  return from_vector<int64_t>(v, {kBatch, 2});  // two tokens per example, summed below
}
Tensor batch_targets(int s) {
  std::vector<int64_t> v;
  for (int i = 0; i < kBatch; ++i) v.push_back((i * 3 + s) % kClasses);
  return from_vector<int64_t>(v, {kBatch});
}

}  // namespace

// Runs the test's body on one backend, then puts the default back.
class OnBackend {
 public:
  explicit OnBackend(const std::string& name) : saved_(Context::get().backend().name()) {
    Context::get().set_backend(name);
  }
  ~OnBackend() { Context::get().set_backend(saved_); }
  OnBackend(const OnBackend&) = delete;
  OnBackend& operator=(const OnBackend&) = delete;

 private:
  std::string saved_;
};

TEST(LazyVsOpByOp, TrainingLoopIsBitIdentical) {
  OnBackend reference("reference");
  Params base = init();
  Params lazy = copy(base), eager = copy(base);
  // One fixed batch (so that the loss must fall); [B, 2] ids, first token only via select.
  auto run = [](Params& p, int, auto op) {
    Tensor ids = batch_ids(0).select(1, 0);
    return step(p, ids, batch_targets(0), 0.5, op);
  };
  std::vector<float> lazy_losses, eager_losses, lazy_stats, eager_stats;
  int64_t cached_before = metrics::counter("CachedCompile").get();
  for (int s = 0; s < 4; ++s) {
    std::vector<Tensor> out = run(lazy, s, [](Tensor t) { return t; });
    lazax::sync();
    lazy_losses.push_back(static_cast<float>(out[0].item()));
    for (float f : out[1].to_vector<float>()) lazy_stats.push_back(f);
  }
  EXPECT_GE(metrics::counter("CachedCompile").get() - cached_before, 2)
      << "later lazy steps should replay the cached program";
  for (int s = 0; s < 4; ++s) {
    std::vector<Tensor> out = run(eager, s, [](Tensor t) {
      lazax::sync();
      EXPECT_FALSE(t.is_pending());
      return t;
    });
    eager_losses.push_back(static_cast<float>(out[0].item()));
    for (float f : out[1].to_vector<float>()) eager_stats.push_back(f);
  }
  EXPECT_EQ(lazy_losses, eager_losses);
  EXPECT_EQ(lazy_stats, eager_stats);
  EXPECT_EQ(lazy.w1.to_vector<float>(), eager.w1.to_vector<float>());
  EXPECT_EQ(lazy.b1.to_vector<float>(), eager.b1.to_vector<float>());
  EXPECT_EQ(lazy.w2.to_vector<float>(), eager.w2.to_vector<float>());
  EXPECT_LT(lazy_losses.back(), lazy_losses.front()) << "the gradient steps should help";
  // The base parameters were never written through the copies.
  EXPECT_NE(base.w2.to_vector<float>(), lazy.w2.to_vector<float>());
}

TEST(LazyVsOpByOp, TrainingLoopAgreesOnTheCpuBackend) {
  OnBackend cpu("cpu");
  Params lazy = init(), eager = copy(lazy);
  Tensor ids = batch_ids(0).select(1, 0);
  for (int s = 0; s < 4; ++s) {
    step(lazy, ids, batch_targets(0), 0.5, [](Tensor t) { return t; });
    lazax::sync();
    step(eager, ids, batch_targets(0), 0.5, [](Tensor t) {
      lazax::sync();
      return t;
    });
  }
  auto close = [](const Tensor& a, const Tensor& b) {
    std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
    EXPECT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size() && i < y.size(); ++i)
      EXPECT_NEAR(x[i], y[i], 1e-5 * std::max(1.0f, std::fabs(y[i]))) << "element " << i;
  };
  close(lazy.w1, eager.w1);
  close(lazy.b1, eager.b1);
  close(lazy.w2, eager.w2);
}

TEST(LazyVsOpByOp, EmbeddingOfATokenMatrix) {
  Params p = init();
  Tensor ids = batch_ids(1);
  Tensor lazy = embedding(p.emb, ids).sum({1});
  lazax::sync();
  Tensor e = embedding(p.emb, ids);
  lazax::sync();
  Tensor eager = e.sum({1});
  lazax::sync();
  EXPECT_EQ(lazy.sizes(), (std::vector<int64_t>{kBatch, kDim}));
  EXPECT_EQ(lazy.to_vector<float>(), eager.to_vector<float>());
}
