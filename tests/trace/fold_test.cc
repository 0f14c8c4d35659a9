// Record-time folding of layout chains (src/trace/graph.cc record()): transpose of a transpose,
// reshape of a reshape and broadcast_in_dim of a broadcast_in_dim become one op of the chain's
// start, and an op that changes nothing returns its operand. Each fold is checked for the node
// it records and for values bit-identical to the unfolded ops (a sync between the two ops makes
// the first one data, a leaf nothing is folded through).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/tape.h"
#include "lazax/core/error.h"
#include "lazax/core/metrics.h"
#include "lazax/trace/trace_stack.h"

using namespace lazax;

namespace {

int64_t ops_recorded() { return metrics::counter("OpsRecorded").get(); }

// 0, 1, 2, ... as f32 (distinct values: a wrong element order shows).
Tensor counting(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f - 3.0f;
  return from_vector<float>(v, shape);
}

// One primitive, recorded as the API records it (record_op -> record).
Tensor record_op(OpCode op, const Tensor& x, Attrs attrs) {
  return record_op(op, {&x}, std::move(attrs));
}

const GraphNode& node_of(const Tensor& t) { return *t.impl()->pending().node; }

// The graph node x stands for as an operand: its pending node, or the data leaf of its data.
const GraphNode* source_of(const Tensor& x) { return x.impl()->graph_value().node.get(); }

// Runs `second(first(x))` unfolded (a sync in between) and folded, and checks that the folded
// one equals it bit for bit. Returns the folded result (synced).
template <class F1, class F2>
Tensor expect_same_values(const Tensor& x, F1 first, F2 second, Tensor* pending = nullptr) {
  Tensor a = first(x);
  lazax::sync();
  Tensor unfolded = second(a);
  Tensor folded = second(first(x));
  if (pending) *pending = folded;
  std::vector<float> want = unfolded.to_vector<float>(), got = folded.to_vector<float>();
  EXPECT_EQ(unfolded.sizes(), folded.sizes());
  EXPECT_EQ(want, got);
  return folded;
}

}  // namespace

TEST(Fold, TransposeOfTransposeIsOneTranspose) {
  Tensor x = counting({2, 3, 4});
  auto t1 = [](const Tensor& v) {
    return record_op(OpCode::transpose, v, TransposeAttrs{{1, 2, 0}});
  };
  auto t2 = [](const Tensor& v) {
    return record_op(OpCode::transpose, v, TransposeAttrs{{0, 2, 1}});
  };
  Tensor y = t2(t1(x));
  const GraphNode& n = node_of(y);
  EXPECT_EQ(n.op, OpCode::transpose);
  EXPECT_EQ(n.operands[0].node.get(), source_of(x));
  // Result dim j is x's dim p1[p2[j]].
  EXPECT_TRUE(attrs_equal(*n.attrs, Attrs(TransposeAttrs{{1, 0, 2}})));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{3, 2, 4}));
  expect_same_values(x, t1, t2);
}

TEST(Fold, TransposesThatCancelReturnTheOperand) {
  Tensor x = counting({2, 3, 4}) * 2.0;  // pending
  GraphValue xv = x.impl()->pending();
  auto t1 = [](const Tensor& v) {
    return record_op(OpCode::transpose, v, TransposeAttrs{{1, 2, 0}});
  };
  auto t2 = [](const Tensor& v) {
    return record_op(OpCode::transpose, v, TransposeAttrs{{2, 0, 1}});
  };
  Tensor y = t2(t1(x));
  EXPECT_EQ(y.impl()->pending().node, xv.node);
  EXPECT_EQ(y.impl()->pending().index, xv.index);
  // Of data: the result is pending on x's data leaf, and syncs to x's values.
  Tensor d = counting({2, 3, 4});
  Tensor z = expect_same_values(d, t1, t2);
  EXPECT_EQ(z.to_vector<float>(), d.to_vector<float>());
}

TEST(Fold, IdentityTransposeReshapeBroadcastRecordNothing) {
  Tensor x = counting({2, 3}) + 1.0;
  GraphValue xv = x.impl()->pending();
  int64_t before = ops_recorded();
  Tensor a = record_op(OpCode::transpose, x, TransposeAttrs{{0, 1}});
  Tensor b = record_op(OpCode::reshape, x, ReshapeAttrs{Shape{2, 3}});
  Tensor c = record_op(OpCode::broadcast_in_dim, x, BroadcastInDimAttrs{Shape{2, 3}, {0, 1}});
  EXPECT_EQ(ops_recorded(), before);
  for (const Tensor* t : {&a, &b, &c}) EXPECT_EQ(t->impl()->pending().node, xv.node);
  // Distinct handles all the same: updating one in place leaves the others.
  a.add_(1.0);
  std::vector<float> xs = x.to_vector<float>(), as = a.to_vector<float>();
  EXPECT_EQ(b.to_vector<float>(), xs);
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(as[i], xs[i] + 1.0f);
}

TEST(Fold, ReshapeOfReshapeIsOneReshape) {
  Tensor x = counting({2, 3, 4});
  auto r1 = [](const Tensor& v) {
    return record_op(OpCode::reshape, v, ReshapeAttrs{Shape{6, 4}});
  };
  auto r2 = [](const Tensor& v) {
    return record_op(OpCode::reshape, v, ReshapeAttrs{Shape{4, 6}});
  };
  Tensor y = r2(r1(x));
  const GraphNode& n = node_of(y);
  EXPECT_EQ(n.op, OpCode::reshape);
  EXPECT_EQ(n.operands[0].node.get(), source_of(x));
  EXPECT_EQ(n.outputs[0].shape, (Shape{4, 6}));
  expect_same_values(x, r1, r2);
  // Back to x's shape: x itself.
  auto back = [](const Tensor& v) {
    return record_op(OpCode::reshape, v, ReshapeAttrs{Shape{2, 3, 4}});
  };
  Tensor p = x * 1.5;
  EXPECT_EQ(back(r1(p)).impl()->pending().node, p.impl()->pending().node);
  expect_same_values(x, r1, back);
}

TEST(Fold, BroadcastOfBroadcastComposesTheDimensions) {
  // [3,1] -> [2,3,1] (dims 1,2) -> [2,3,4] (dims 0,1,2): x's dims go to 1 and 2, the size-1
  // one expanded only by the second.
  Tensor x = counting({3, 1});
  auto b1 = [](const Tensor& v) {
    return record_op(OpCode::broadcast_in_dim, v, BroadcastInDimAttrs{Shape{2, 3, 1}, {1, 2}});
  };
  auto b2 = [](const Tensor& v) {
    return record_op(OpCode::broadcast_in_dim, v, BroadcastInDimAttrs{Shape{2, 3, 4}, {0, 1, 2}});
  };
  Tensor y = b2(b1(x));
  const GraphNode& n = node_of(y);
  EXPECT_EQ(n.op, OpCode::broadcast_in_dim);
  EXPECT_EQ(n.operands[0].node.get(), source_of(x));
  EXPECT_TRUE(attrs_equal(*n.attrs, Attrs(BroadcastInDimAttrs{Shape{2, 3, 4}, {1, 2}})));
  expect_same_values(x, b1, b2);
  // [3] -> [3,1] (dim 0) -> [2,3,5] (dims 1,2); a scalar through two broadcasts.
  auto c1 = [](const Tensor& v) {
    return record_op(OpCode::broadcast_in_dim, v, BroadcastInDimAttrs{Shape{3, 1}, {0}});
  };
  auto c2 = [](const Tensor& v) {
    return record_op(OpCode::broadcast_in_dim, v, BroadcastInDimAttrs{Shape{2, 3, 5}, {1, 2}});
  };
  Tensor v = counting({3});
  EXPECT_TRUE(
      attrs_equal(*node_of(c2(c1(v))).attrs, Attrs(BroadcastInDimAttrs{Shape{2, 3, 5}, {1}})));
  expect_same_values(v, c1, c2);
  auto s1 = [](const Tensor& s) {
    return record_op(OpCode::broadcast_in_dim, s, BroadcastInDimAttrs{Shape{4}, {}});
  };
  auto s2 = [](const Tensor& s) {
    return record_op(OpCode::broadcast_in_dim, s, BroadcastInDimAttrs{Shape{3, 4}, {1}});
  };
  Tensor s = from_vector<float>({2.5f}, {});
  EXPECT_TRUE(attrs_equal(*node_of(s2(s1(s))).attrs, Attrs(BroadcastInDimAttrs{Shape{3, 4}, {}})));
  expect_same_values(s, s1, s2);
}

TEST(Fold, ABadOuterOpFailsAsUnfoldedAndRecordsNothing) {
  Tensor x = counting({2, 3});
  Tensor t = record_op(OpCode::transpose, x, TransposeAttrs{{1, 0}});
  Tensor r = record_op(OpCode::reshape, x, ReshapeAttrs{Shape{6}});
  Tensor b = record_op(OpCode::broadcast_in_dim, x, BroadcastInDimAttrs{Shape{4, 2, 3}, {1, 2}});
  int64_t before = ops_recorded();
  EXPECT_THROW(record_op(OpCode::transpose, t, TransposeAttrs{{0, 0}}), ShapeError);
  EXPECT_THROW(record_op(OpCode::transpose, t, TransposeAttrs{{0, 1, 2}}), ShapeError);
  EXPECT_THROW(record_op(OpCode::reshape, r, ReshapeAttrs{Shape{5}}), ShapeError);
  EXPECT_THROW(
      record_op(OpCode::broadcast_in_dim, b, BroadcastInDimAttrs{Shape{4, 2, 4}, {0, 1, 2}}),
      ShapeError);
  EXPECT_EQ(ops_recorded(), before);
  // The same message as when nothing could be folded (t synced: a data leaf).
  auto message = [](const Tensor& v) {
    try {
      record_op(OpCode::transpose, v, TransposeAttrs{{0, 0}});
    } catch (const ShapeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string folded = message(t);
  lazax::sync();
  EXPECT_EQ(message(t), folded);
}

TEST(Fold, NotIntoAnotherTracesNodes) {
  Tensor x = counting({2, 3}) * 2.0;
  Tensor t = record_op(OpCode::transpose, x, TransposeAttrs{{1, 0}});  // lazy
  TraceScope scope("f", "here");
  // Through the API the lazy value is lifted to an input of the trace: nothing to fold.
  Tensor y = record_op(OpCode::transpose, t, TransposeAttrs{{1, 0}});
  EXPECT_EQ(node_of(y).op, OpCode::transpose);
  EXPECT_EQ(node_of(y).operands[0].node->op, OpCode::parameter);
  EXPECT_EQ(node_of(y).operands[0].node->frame, scope.frame_ptr());
  // A lazy node handed straight to record() is not reached into either.
  GraphValue g = record(OpCode::transpose, {t.impl()->pending()}, TransposeAttrs{{1, 0}});
  EXPECT_EQ(g.node->op, OpCode::transpose);
  EXPECT_EQ(g.node->operands[0].node, t.impl()->pending().node);
  EXPECT_EQ(g.node->frame, scope.frame_ptr());
  // Inside the trace its own chains fold.
  Tensor p = make_pending(add_trace_param(TensorType{DType::f32, Shape{2, 3, 4}}));
  Tensor u =
      record_op(OpCode::transpose, record_op(OpCode::transpose, p, TransposeAttrs{{2, 0, 1}}),
                TransposeAttrs{{0, 2, 1}});
  EXPECT_EQ(node_of(u).op, OpCode::transpose);
  EXPECT_EQ(node_of(u).operands[0].node, p.impl()->pending().node);
  EXPECT_TRUE(attrs_equal(*node_of(u).attrs, Attrs(TransposeAttrs{{2, 1, 0}})));
}

TEST(Fold, GradientsAreThoseOfTheOpsAsWritten) {
  // The tape records each API op: the gradient through a folded chain is the same as through
  // the unfolded one, bit for bit.
  Tensor w = counting({2, 3, 4});
  Tensor c = counting({4, 2, 3}) * 0.25;
  auto loss = [&](const Tensor& v, bool sync_between) {
    Tensor a = v.permute({1, 2, 0}).reshape({12, 2});
    if (sync_between) lazax::sync();
    return (a.reshape({4, 3, 2}).permute({0, 2, 1}) * c).sum();
  };
  Tensor w1 = w.detach(), w2 = w.detach();
  w1.requires_grad_();
  w2.requires_grad_();
  loss(w1, true).backward();
  loss(w2, false).backward();
  EXPECT_EQ(w1.grad().to_vector<float>(), w2.grad().to_vector<float>());
  // Through transposes that cancel (the forward records none).
  Tensor w3 = w.detach();
  w3.requires_grad_();
  Tensor y = w3.permute({1, 2, 0}).permute({2, 0, 1});
  EXPECT_EQ(y.impl()->pending().node, w3.impl()->graph_value().node);
  (y * y).sum().backward();
  std::vector<float> g = w3.grad().to_vector<float>(), wv = w.to_vector<float>();
  for (size_t i = 0; i < wv.size(); ++i) EXPECT_EQ(g[i], 2.0f * wv[i]);
}

TEST(Fold, InsideAPureFunctionAndAnInPlaceUpdateOfAnIdentityResult) {
  // The function's transposes cancel and its reshape changes nothing: it returns values made
  // from its input; an in-place update of a handle that is the input's own value stays local.
  auto f = assume_pure([](const Tensor& v) {
    Tensor t = v.permute({1, 0}).permute({1, 0});
    Tensor r = record_op(OpCode::reshape, t, ReshapeAttrs{v.shape()});
    r.add_(1.0);
    return r * t;
  });
  Tensor x = counting({2, 3});
  std::vector<float> xs = x.to_vector<float>(), got = f(x).to_vector<float>();
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(got[i], (xs[i] + 1.0f) * xs[i]);
  EXPECT_EQ(x.to_vector<float>(), xs);  // the argument is not updated
  std::vector<float> again = f(x).to_vector<float>();
  EXPECT_EQ(again, got);
}
