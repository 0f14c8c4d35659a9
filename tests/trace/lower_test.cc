// Lowering a graph to a Function (trace/lower.h), the one lowering sync and function traces use:
// leaves become the parameters in the order given, other nodes follow their operands, a value
// used twice is one node, and a leaf that is not a parameter is an error. Every leaf, data leaf
// or trace input, hashes by its type only.
#include "lazax/trace/lower.h"

#include <gtest/gtest.h>

#include <vector>

#include "lazax/core/error.h"
#include "lazax/ir/printer.h"
#include "lazax/trace/trace_stack.h"

using namespace lazax;

namespace {

const TensorType kF32x2{DType::f32, Shape{2}};

GraphValue leaf(float v) { return data_leaf(Literal::from_vector<float>({v, v}, Shape{2})); }

}  // namespace

TEST(Lower, LeavesBecomeParametersInTheOrderGiven) {
  GraphValue a = leaf(1), b = leaf(2);
  GraphValue sum = record(OpCode::add, {a, b});
  GraphValue twice = record(OpCode::mul, {sum, sum});
  std::vector<GraphNode*> params = {b.node.get(), a.node.get()};  // b first
  FunctionPtr f = lower("main", params, std::vector<GraphValue>{twice, sum});
  ASSERT_EQ(f->num_params(), 2);
  ASSERT_EQ(f->nodes().size(), 4u);  // b, a, add, mul: `sum` is one node
  const Node& add = f->node(2);
  EXPECT_EQ(add.op, OpCode::add);
  EXPECT_EQ(add.operands[0], (ValueRef{1, 0}));  // a is parameter 1
  EXPECT_EQ(add.operands[1], (ValueRef{0, 0}));
  EXPECT_EQ(f->node(3).op, OpCode::mul);
  EXPECT_EQ(f->results(), (std::vector<ValueRef>{{3, 0}, {2, 0}}));
  // The same graph lowered from a walk done beforehand is the same program.
  std::vector<GraphNode*> nodes = {sum.node.get(), twice.node.get()};
  FunctionPtr g = lower_walked("main", params, nodes, std::vector<GraphValue>{twice, sum});
  EXPECT_EQ(print_program(*f), print_program(*g));
  EXPECT_EQ(f->hash(), g->hash());
}

TEST(Lower, ALeafThatIsNoParameterIsAnError) {
  GraphValue a = leaf(1), b = leaf(2);
  GraphValue sum = record(OpCode::add, {a, b});
  std::vector<GraphNode*> params = {a.node.get()};
  EXPECT_THROW(lower("main", params, std::vector<GraphValue>{sum}), ValueError);
}

TEST(Lower, EveryLeafHashesByItsTypeOnly) {
  GraphValue a = leaf(1), b = leaf(2);
  EXPECT_EQ(a.node->hash, b.node->hash);
  TraceScope scope("f", "lower_test");
  GraphValue input = add_trace_param(kF32x2);
  EXPECT_EQ(input.node->hash, a.node->hash);
  EXPECT_EQ(make_leaf_node(kF32x2, nullptr)->hash, a.node->hash);
  EXPECT_NE(make_leaf_node(TensorType{DType::f32, Shape{3}}, nullptr)->hash, a.node->hash);
}
