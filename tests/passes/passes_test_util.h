// Helpers of the pass tests: run a program before and after a pass on random arguments with the
// reference interpreter, and count nodes.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "lazax/interp/interpreter.h"
#include "lazax/ir/builder.h"
#include "lazax/ir/printer.h"
#include "lazax/passes/passes.h"
#include "random_program.h"

namespace lazax::passes_test {

// Nodes of `op` in f and, recursively, its sub-functions (counted once per use).
inline int count(const Function& f, OpCode op) {
  int n = 0;
  for (const Node& node : f.nodes()) n += node.op == op ? 1 : 0;
  for (const FunctionPtr& g : f.callees()) n += count(*g, op);
  return n;
}

// The same results (NaN matching NaN, -0 matching +0) on `seeds` random arguments.
inline void expect_same_results(const FunctionPtr& before, const FunctionPtr& after,
                                int seeds = 4) {
  ASSERT_EQ(before->param_types(), after->param_types());
  for (int s = 0; s < seeds; ++s) {
    std::vector<Literal> args = testing::random_arguments(*before, static_cast<uint64_t>(s));
    std::string diff = testing::compare_results(interpret(*before, args), interpret(*after, args));
    EXPECT_EQ(diff, "") << "before:\n"
                        << print_program(*before) << "after:\n"
                        << print_program(*after);
  }
}

}  // namespace lazax::passes_test
