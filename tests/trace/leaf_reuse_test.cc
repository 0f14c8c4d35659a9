// A data leaf given new data in place (src/trace/lazy_value.cc set_data): a value synced to new
// data keeps its leaf node when nothing else holds it, so that a parameter updated every step
// does not make a new node each step; a leaf read by anything else (a pending graph, a held
// graph value such as assume_pure's residuals, the leaf shared by a host scalar) keeps its old
// data and the value gets a new leaf.
#include <gtest/gtest.h>

#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/tape.h"

using namespace lazax;

namespace {

const GraphNode* leaf_of(const Tensor& x) { return x.impl()->graph_value().node.get(); }

std::vector<float> leaf_data(const GraphNode* n) { return n->data->to_vector<float>(); }

// One SGD-like step on `w`: reads it into a loss-like value, syncs, updates it, syncs.
void step(Tensor& w, float lr) {
  Tensor y = (w * w).sum();
  lazax::sync();
  NoGrad off;
  w.sub_(w * static_cast<double>(lr));
  lazax::sync();
}

}  // namespace

TEST(LeafReuse, AValueUpdatedEveryStepKeepsOneLeafNode) {
  Tensor w = from_vector<float>({1, 2, 3, 4}, {4});
  const GraphNode* first = leaf_of(w);
  ASSERT_EQ(first->op, OpCode::parameter);
  step(w, 0.5f);
  int64_t live = live_graph_nodes();
  std::vector<float> want = {1, 2, 3, 4};
  for (int i = 0; i < 4; ++i) {
    step(w, 0.5f);
    EXPECT_EQ(live_graph_nodes(), live) << "step " << i;
  }
  for (float& v : want) v *= 0.5f * 0.5f * 0.5f * 0.5f * 0.5f;
  EXPECT_EQ(w.to_vector<float>(), want);
  // The same node, holding the new data, and reading it gives the new values.
  EXPECT_EQ(leaf_of(w), first);
  EXPECT_EQ(leaf_data(first), want);
  Tensor z = w * 2.0;
  std::vector<float> twice = want;
  for (float& v : twice) v *= 2;
  EXPECT_EQ(z.to_vector<float>(), twice);
}

TEST(LeafReuse, ALeafHeldElsewhereKeepsItsData) {
  Tensor w = from_vector<float>({1, 2, 3}, {3});
  GraphValue held = w.impl()->graph_value();  // as assume_pure's residuals hold a data leaf
  {
    NoGrad off;
    w.add_(10.0);
  }
  lazax::sync();
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{11, 12, 13}));
  EXPECT_EQ(leaf_data(held.node.get()), (std::vector<float>{1, 2, 3}));
  EXPECT_NE(leaf_of(w), held.node.get());
  EXPECT_EQ(leaf_data(leaf_of(w)), (std::vector<float>{11, 12, 13}));
}

TEST(LeafReuse, AValueOverwrittenWithoutReadingItDropsItsLeafAtOnce) {
  Tensor w = from_vector<float>({1, 2, 3}, {3});
  std::weak_ptr<GraphNode> old = w.impl()->graph_value().node;
  ASSERT_FALSE(old.expired());
  w.copy_(from_vector<float>({4, 5, 6}, {3}) * 1.0);  // the new value does not read the old
  EXPECT_TRUE(old.expired());  // the old leaf went with the old data, before any sync
  lazax::sync();
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(leaf_data(leaf_of(w)), (std::vector<float>{4, 5, 6}));
}

TEST(LeafReuse, ALeafSharedByHostScalarsIsNeverRewritten) {
  // x * 2.0 reads the one leaf lazax keeps for the host scalar 2.0 (f32); updating x must not
  // touch it, and later uses of 2.0 still read 2.
  Tensor x = from_vector<float>({1, 2}, {2});
  Tensor y = x * 2.0;
  lazax::sync();
  {
    NoGrad off;
    x.mul_(3.0);
  }
  lazax::sync();
  Tensor z = from_vector<float>({5, 7}, {2}) * 2.0;
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{10, 14}));
}

TEST(LeafReuse, AssumePureBackwardReadsTheInputAsItWasAtTheCall) {
  // x is data when the call reads it (a data leaf the call's residuals keep); updated in place
  // and synced before the backward, its leaf must not take the new data.
  auto body = [](const Tensor& x, const Tensor& w) { return (x * w).sum() + (w * w).sum(); };
  auto pure = assume_pure(body);
  std::vector<std::vector<float>> grads;
  for (bool use_pure : {false, true}) {
    Tensor x = from_vector<float>({0.5f, -1, 2, 0.25f}, {4});
    Tensor w = from_vector<float>({1, 2, -3, 0.5f}, {4}).requires_grad_();
    Tensor loss = use_pure ? pure(x, w) : body(x, w);
    lazax::sync();
    {
      NoGrad off;
      x.add_(100.0);
    }
    lazax::sync();
    loss.backward();
    grads.push_back(w.grad().to_vector<float>());
  }
  EXPECT_EQ(grads[1], grads[0]);
  // d/dw = x (as it was) + 2w.
  EXPECT_EQ(grads[1], (std::vector<float>{0.5f + 2, -1 + 4, 2 - 6, 0.25f + 1}));
}
