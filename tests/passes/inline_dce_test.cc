// inline_calls and dce, each against the interpreter plus the nodes they remove.
#include "passes_test_util.h"

namespace lazax {
namespace {

using passes_test::count;
using passes_test::expect_same_results;

constexpr const char* kNestedCalls = R"(
func @inner(%a: f32[3]) -> (f32[3]) {
  %0 = tanh(%a) : f32[3]
  return %0
}
func @outer(%a: f32[3], %b: f32[3]) -> (f32[3], f32[3]) {
  %0 = call(%a) {callee=@inner} : f32[3]
  %1 = mul(%0, %b) : f32[3]
  return %1, %0
}
func @body(%c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
  %0:2 = call(%c, %x) {callee=@outer} : (f32[3], f32[3])
  return %0#0, %0#1
}
func @main(%x: f32[3], %y: f32[3], %xs: f32[2,3]) -> (f32[3], f32[3], f32[3], f32[2,3]) {
  %0:2 = call(%x, %y) {callee=@outer} : (f32[3], f32[3])
  %1 = add(%0#0, %0#1) : f32[3]
  %2:2 = scan(%x, %xs) {body=@body, length=2, num_carry=1, reverse=false} : (f32[3], f32[2,3])
  return %1, %0#1, %2#0, %2#1
}
)";

TEST(Inline, NestedCallsAndCallsInLoopBodiesGo) {
  FunctionPtr f = parse_program(kNestedCalls);
  FunctionPtr g = passes::inline_calls(f);
  EXPECT_EQ(count(*g, OpCode::call), 0) << print_program(*g);
  EXPECT_EQ(count(*g, OpCode::scan), 1);
  EXPECT_EQ(count(*f, OpCode::tanh), count(*g, OpCode::tanh));
  verify(*g);
  expect_same_results(f, g);
  EXPECT_EQ(passes::inline_calls(g), g) << "nothing left to inline: the same function";
}

TEST(Inline, KeepCallsOutlinedLeavesCalls) {
  FunctionPtr f = parse_program(kNestedCalls);
  EXPECT_EQ(passes::inline_calls(f, /*keep_calls_outlined=*/true), f);
  passes::PassOptions o;
  o.keep_calls_outlined = true;
  FunctionPtr g = passes::optimize(f, o);
  EXPECT_EQ(count(*g, OpCode::call), count(*f, OpCode::call));
  expect_same_results(f, g);
}

TEST(Dce, RemovesDeadNodesKeepsParameters) {
  FunctionPtr f = parse_program(R"(
func @body(%c: f32[2]) -> (f32[2]) {
  %0 = exp(%c) : f32[2]
  %1 = sin(%c) : f32[2]
  return %1
}
func @main(%x: f32[2], %unused: f32[2], %k: i64[2]) -> (f32[2]) {
  %0 = neg(%x) : f32[2]
  %1 = cos(%0) : f32[2]
  %2:2 = random_bits(%k) {shape=[2], dtype=i32} : (i32[2], i64[2])
  %3 = call(%x) {callee=@body} : f32[2]
  %4 = add(%0, %3) : f32[2]
  return %4
})");
  FunctionPtr g = passes::dce(f);
  EXPECT_EQ(count(*g, OpCode::cos), 0);
  EXPECT_EQ(count(*g, OpCode::random_bits), 0);
  EXPECT_EQ(count(*g, OpCode::exp), 0) << "dead node of a callee";
  EXPECT_EQ(count(*g, OpCode::sin), 1);
  EXPECT_EQ(g->num_params(), 3);
  verify(*g);
  std::vector<Literal> args = {Literal::from_vector<float>({1, -2}, Shape{2}),
                               Literal::from_vector<float>({3, 4}, Shape{2}),
                               Literal::from_vector<int64_t>({7, 0}, Shape{2})};
  EXPECT_EQ(testing::compare_results(interpret(*f, args), interpret(*g, args)), "");
  EXPECT_EQ(passes::dce(g), g);
}

}  // namespace
}  // namespace lazax
