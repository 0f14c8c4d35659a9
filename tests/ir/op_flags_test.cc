// The op table's flags (ir/op.h) on a few ops, and the facts derived from them.
#include <gtest/gtest.h>

#include "lazax/ir/function.h"
#include "lazax/ir/op.h"

using namespace lazax;

TEST(OpFlags, LayoutViewsAreCheapLayoutViews) {
  for (OpCode op : {OpCode::broadcast_in_dim, OpCode::reshape, OpCode::transpose}) {
    EXPECT_TRUE(has_flag(op, kView)) << op_name(op);
    EXPECT_TRUE(has_flag(op, kLayout)) << op_name(op);
    EXPECT_TRUE(has_flag(op, kCheapToRecompute)) << op_name(op);
    EXPECT_FALSE(has_flag(op, kElementwise)) << op_name(op);
  }
  // convert is a view (it retypes) but elementwise, not a layout op: record does not fold it.
  EXPECT_TRUE(has_flag(OpCode::convert, kView));
  EXPECT_TRUE(has_flag(OpCode::convert, kElementwise));
  EXPECT_FALSE(has_flag(OpCode::convert, kLayout));
  // slice moves data but makes a smaller value: not a view (saving it beats saving its source).
  EXPECT_TRUE(has_flag(OpCode::slice, kLayout));
  EXPECT_FALSE(has_flag(OpCode::slice, kView));
}

TEST(OpFlags, CheapToRecomputeIsArithmeticWithoutTranscendentalWork) {
  for (OpCode op :
       {OpCode::add, OpCode::mul, OpCode::div, OpCode::relu, OpCode::select, OpCode::compare})
    EXPECT_TRUE(has_flag(op, kCheapToRecompute)) << op_name(op);
  for (OpCode op : {OpCode::exp, OpCode::tanh, OpCode::dot_general, OpCode::reduce_sum,
                    OpCode::random_bits, OpCode::call})
    EXPECT_FALSE(has_flag(op, kCheapToRecompute)) << op_name(op);
}

TEST(OpFlags, RulesSkipOutputsHasBodiesInternal) {
  for (OpCode op :
       {OpCode::add, OpCode::mul, OpCode::relu, OpCode::dot_general, OpCode::reduce_sum})
    EXPECT_TRUE(has_flag(op, kRulesSkipOutputs)) << op_name(op);
  for (OpCode op : {OpCode::exp, OpCode::div, OpCode::reduce_max})  // their rules read the result
    EXPECT_FALSE(has_flag(op, kRulesSkipOutputs)) << op_name(op);
  for (OpCode op : {OpCode::call, OpCode::cond, OpCode::while_, OpCode::scan})
    EXPECT_TRUE(has_flag(op, kHasBodies)) << op_name(op);
  EXPECT_FALSE(has_flag(OpCode::checkpoint_name, kHasBodies));
  EXPECT_TRUE(has_flag(OpCode::parameter, kInternal));
  EXPECT_FALSE(op_from_name("parameter").has_value());
  EXPECT_EQ(op_from_name("add"), OpCode::add);
}

TEST(OpFlags, TheFlagsColumnIsTheTables) {
  for (int i = 0; i < kNumOps; ++i) {
    auto op = static_cast<OpCode>(i);
    EXPECT_EQ(kOpFlags[i], op_info(op).flags) << op_name(op);
  }
}

TEST(OpFlags, AttributesOfOpsWithBodies) {
  EXPECT_TRUE(has_bodies(CallAttrs{}));
  EXPECT_TRUE(has_bodies(CondAttrs{}));
  EXPECT_TRUE(has_bodies(WhileAttrs{}));
  EXPECT_TRUE(has_bodies(ScanAttrs{}));
  EXPECT_FALSE(has_bodies(NoAttrs{}));
  EXPECT_FALSE(has_bodies(TransposeAttrs{}));
  EXPECT_FALSE(has_bodies(ParameterAttrs{}));
}
