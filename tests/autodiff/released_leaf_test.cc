// A tape entry's edges point to its leaves by plain pointer; a released entry (after backward)
// drops its leaves, and the walks key leaves by id, so that a new tensor made at a freed leaf's
// address is never taken for that leaf (grad and jvp of a function that reads such an entry's
// output must give the right result, not "backward through the graph a second time"); and the
// leaf is freed when nothing else holds it, even with create_graph (no reference cycle).
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

TEST(ReleasedEntryLeaf, GradThroughAReleasedEntryWhoseLeafAddressWasReused) {
  int hits = 0;
  for (int attempt = 0; attempt < 20 && hits == 0; ++attempt) {
    Tensor w = ones({3}, DType::f32) * 3.0;  // pending, pooled impl
    w.requires_grad_(true);
    Tensor c = w * 2.0;  // tape entry N saves w; its edge's leaf_impl = w's impl
    c.sum().backward();  // N is released: its saved inputs (w) are dropped
    const TensorImpl* old = w.impl();
    Tensor x0 = ones({3}, DType::f32);
    w = Tensor();  // w's impl is freed (N no longer holds it)
    bool hit = false;
    Tensor g;
    try {
      g = grad([&](const Tensor& x) {
        hit = x.impl() == old;  // the transform's input took w's old address
        return (c * x).sum();
      })(x0);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "attempt " << attempt << " (address reused: " << hit << "): " << e.what();
      ++hits;
      continue;
    }
    if (hit) ++hits;
    EXPECT_EQ(g.to_vector<float>(), std::vector<float>({6, 6, 6}));
  }
}

TEST(ReleasedEntryLeaf, JvpThroughAReleasedEntryWhoseLeafAddressWasReused) {
  int hits = 0;
  for (int attempt = 0; attempt < 20 && hits == 0; ++attempt) {
    Tensor w = ones({3}, DType::f32) * 3.0;
    w.requires_grad_(true);
    Tensor c = w * 2.0;
    c.sum().backward();
    const TensorImpl* old = w.impl();
    Tensor x0 = ones({3}, DType::f32), t0 = ones({3}, DType::f32);
    w = Tensor();
    bool hit = false;
    try {
      auto [y, ty] = jvp(
          [&](const Tensor& x) {
            hit = x.impl() == old;
            return (c * x).sum();
          },
          std::make_tuple(x0), std::make_tuple(t0));
      if (hit) ++hits;
      EXPECT_FLOAT_EQ(ty.item(), 18.0);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "attempt " << attempt << " (address reused: " << hit << "): " << e.what();
      ++hits;
    }
  }
}

TEST(ReleasedEntryLeaf, CreateGraphWithoutRetainFreesTheLeaf) {
  // x.grad's tape reaches the released exp entry (create_graph re-attaches its saved output to
  // it): if that entry held x, x -> grad -> tape -> entry -> x would never be freed.
  std::weak_ptr<TensorImpl> alive;
  {
    Tensor x = rnd({3}, 1).detach();
    x.requires_grad_();
    alive = x.impl_ptr();
    Tensor y = exp(x).sum();
    y.backward(Tensor(), /*retain_graph=*/false, /*create_graph=*/true);
    ASSERT_TRUE(x.grad().defined());
    EXPECT_TRUE(x.grad().requires_grad());
  }
  EXPECT_TRUE(alive.expired());
}

TEST(ReleasedEntryLeaf, BackwardTwiceStillSaysSo) {
  Tensor w = rnd({3}, 2).detach().requires_grad_();
  Tensor loss = (w * w).sum();
  loss.backward();
  EXPECT_THROW(loss.backward(), ValueError);
}

}  // namespace
