#include "lazax/ir/builder.h"

#include <gtest/gtest.h>

using namespace lazax;

TEST(Op, NamesRoundTrip) {
  for (int i = 0; i < kNumOps; ++i) {
    auto op = static_cast<OpCode>(i);
    if (has_flag(op, kInternal)) continue;
    EXPECT_EQ(op_from_name(op_name(op)), op) << op_name(op);
  }
  EXPECT_EQ(op_name(OpCode::while_), "while");
  EXPECT_FALSE(op_from_name("parameter").has_value());
}
