// cse and fold_constants, each against the interpreter plus the nodes they remove.
#include "passes_test_util.h"

namespace lazax {
namespace {

using passes_test::count;
using passes_test::expect_same_results;

TEST(Cse, MergesRepeatedNodesAndSubFunctionsByHash) {
  FunctionPtr f = parse_program(R"(
func @b1(%c: f32[2]) -> (f32[2]) {
  %0 = exp(%c) : f32[2]
  %1 = exp(%c) : f32[2]
  %2 = add(%0, %1) : f32[2]
  return %2
}
func @b2(%c: f32[2]) -> (f32[2]) {
  %0 = exp(%c) : f32[2]
  %1 = exp(%c) : f32[2]
  %2 = add(%0, %1) : f32[2]
  return %2
}
func @main(%x: f32[2], %y: f32[2]) -> (f32[2]) {
  %0 = mul(%x, %y) : f32[2]
  %1 = mul(%x, %y) : f32[2]
  %2 = mul(%y, %x) : f32[2]
  %3 = tanh(%0) : f32[2]
  %4 = tanh(%1) : f32[2]
  %5 = call(%3) {callee=@b1} : f32[2]
  %6 = call(%4) {callee=@b2} : f32[2]
  %7 = add(%5, %6) : f32[2]
  %8 = add(%7, %2) : f32[2]
  return %8
})");
  FunctionPtr g = passes::dce(passes::cse(f));
  // mul(y, x) is another node (operand order is not normalized).
  EXPECT_EQ(count(*g, OpCode::mul), 2) << print_program(*g);
  EXPECT_EQ(count(*g, OpCode::tanh), 1);
  EXPECT_EQ(count(*g, OpCode::call), 1) << "calls of equal callees merge";
  EXPECT_EQ(count(*g, OpCode::exp), 1) << "inside the callee too";
  verify(*g);
  expect_same_results(f, g);
}

TEST(Cse, NeverMergesBarriersNorDrawsWithDistinctKeys) {
  FunctionPtr f = parse_program(R"(
func @main(%x: f32[2], %k1: i64[2], %k2: i64[2]) -> (f32[2], f32[2], i32[2], i32[2], i32[2]) {
  %0 = optimization_barrier(%x) : f32[2]
  %1 = optimization_barrier(%x) : f32[2]
  %2 = exp(%0) : f32[2]
  %3 = exp(%1) : f32[2]
  %4:2 = random_bits(%k1) {shape=[2], dtype=i32} : (i32[2], i64[2])
  %5:2 = random_bits(%k2) {shape=[2], dtype=i32} : (i32[2], i64[2])
  %6:2 = random_bits(%k1) {shape=[2], dtype=i32} : (i32[2], i64[2])
  return %2, %3, %4#0, %5#0, %6#0
})");
  FunctionPtr g = passes::dce(passes::cse(f));
  EXPECT_EQ(count(*g, OpCode::optimization_barrier), 2);
  EXPECT_EQ(count(*g, OpCode::exp), 2) << "computation after distinct barriers stays apart";
  EXPECT_EQ(count(*g, OpCode::random_bits), 2) << "same key: one draw; distinct keys: two";
  std::vector<Literal> args = {Literal::from_vector<float>({1, 2}, Shape{2}),
                               Literal::from_vector<int64_t>({1, 0}, Shape{2}),
                               Literal::from_vector<int64_t>({2, 0}, Shape{2})};
  std::vector<Literal> got = interpret(*g, args);
  EXPECT_EQ(testing::compare_results(interpret(*f, args), got), "");
  EXPECT_FALSE(got[2].bit_equal(got[3])) << "the two keys draw different bits";
}

TEST(Fold, EvaluatesSmallConstantSubtrees) {
  FunctionPtr f = parse_program(R"(
func @main(%x: f32[3]) -> (f32[3], f32[], f32[64,64]) {
  %0 = constant() {value=f32[3] [1, 2, 3]} : f32[3]
  %1 = exp(%0) : f32[3]
  %2 = constant() {value=f32[3] [0.5, 0.5, 0.5]} : f32[3]
  %3 = mul(%1, %2) : f32[3]
  %4 = add(%3, %x) : f32[3]
  %5 = reduce_sum(%3) {axes=[0]} : f32[]
  %6 = iota() {dtype=f32, shape=[64,64], dimension=0} : f32[64,64]
  %7 = sin(%6) : f32[64,64]
  return %4, %5, %7
})");
  FunctionPtr g = passes::dce(passes::fold_constants(f, /*max_elements=*/1024));
  EXPECT_EQ(count(*g, OpCode::exp), 0) << print_program(*g);
  EXPECT_EQ(count(*g, OpCode::mul), 0);
  EXPECT_EQ(count(*g, OpCode::reduce_sum), 0);
  EXPECT_EQ(count(*g, OpCode::add), 1) << "x is not a constant";
  EXPECT_EQ(count(*g, OpCode::iota), 1) << "iota stays";
  EXPECT_EQ(count(*g, OpCode::sin), 1) << "operand is no constant";
  expect_same_results(f, g);
}

TEST(Fold, RespectsTheSizeBound) {
  FunctionPtr f = parse_program(R"(
func @main() -> (f32[40], f32[]) {
  %0 = constant() {value=f32[] [2]} : f32[]
  %1 = exp(%0) : f32[]
  %2 = reshape(%1) {new_sizes=[1]} : f32[1]
  %3 = concatenate(%2, %2, %2, %2, %2, %2, %2, %2, %2, %2) {dimension=0} : f32[10]
  %4 = concatenate(%3, %3, %3, %3) {dimension=0} : f32[40]
  return %4, %1
})");
  FunctionPtr g = passes::fold_constants(f, /*max_elements=*/16);
  EXPECT_EQ(count(*g, OpCode::exp), 0);
  EXPECT_EQ(count(*g, OpCode::concatenate), 1) << "the f32[40] result is over the bound";
  expect_same_results(f, g, 1);
}

}  // namespace
}  // namespace lazax
