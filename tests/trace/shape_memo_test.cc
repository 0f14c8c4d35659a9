// The shape-rule memo of src/trace/graph.cc (make_node): an op recorded again with the same
// attributes on operands of the same types reuses the result type of the rule, without running
// it. A different type or attribute still runs the rule (and fails as it would), more distinct
// keys than the memo holds still get their own types, and the result types are interned.
#include <gtest/gtest.h>

#include <vector>

#include "lazax/core/error.h"
#include "lazax/core/interned_type.h"
#include "lazax/trace/graph.h"

using namespace lazax;

namespace {

GraphValue leaf(DType t, Shape s) { return data_leaf(Literal::zeros({t, std::move(s)})); }

GraphValue add(const GraphValue& a, const GraphValue& b) {
  return record(OpCode::add, GraphOperands{a, b});
}

}  // namespace

TEST(ShapeMemo, TheSameOpOnTheSameTypesGetsTheSameInternedType) {
  GraphValue a = leaf(DType::f32, {2, 3}), b = leaf(DType::f32, {2, 3});
  GraphValue x = add(a, b), y = add(b, a);
  EXPECT_EQ(&x.type(), &y.type());
  EXPECT_EQ(&x.type(), &intern_type({DType::f32, Shape{2, 3}}));
  EXPECT_NE(x.node, y.node);
  EXPECT_EQ(x.node->hash, y.node->hash)
      << "a node hashes by itself (the sync key lists its operands)";
}

TEST(ShapeMemo, AKnownOpOnOtherTypesStillRunsItsRule) {
  GraphValue a = leaf(DType::f32, {2, 3});
  add(a, a);  // (now in the memo)
  EXPECT_THROW(add(a, leaf(DType::f32, {3, 2})), ShapeError);
  EXPECT_THROW(add(a, leaf(DType::i32, {2, 3})), Error);
  GraphValue r = record(OpCode::reduce_sum, GraphOperands{a}, ReduceAttrs{{1}});
  GraphValue s = record(OpCode::reduce_sum, GraphOperands{a}, ReduceAttrs{{0}});
  EXPECT_EQ(r.type(), (TensorType{DType::f32, Shape{2}}));
  EXPECT_EQ(s.type(), (TensorType{DType::f32, Shape{3}})) << "other attributes, other type";
  EXPECT_THROW(record(OpCode::reduce_sum, GraphOperands{a}, ReduceAttrs{{2}}), Error);
}

TEST(ShapeMemo, MoreKeysThanTheMemoHoldsEachGetTheirOwnType) {
  // 3000 distinct shapes, twice: the second round finds some in the memo and recomputes those
  // that were evicted; every result must be its own operand's type.
  for (int round = 0; round < 2; ++round) {
    for (int64_t n = 1; n <= 3000; ++n) {
      GraphValue a = leaf(DType::f32, {n, 2});
      GraphValue t = record(OpCode::transpose, GraphOperands{a}, TransposeAttrs{{1, 0}});
      ASSERT_EQ(t.type(), (TensorType{DType::f32, Shape{2, n}})) << n;
      ASSERT_EQ(add(t, t).type(), t.type()) << n;
    }
  }
}
