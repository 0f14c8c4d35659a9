// simplify against the interpreter plus the nodes it removes.
#include "passes_test_util.h"

namespace lazax {
namespace {

using passes_test::count;
using passes_test::expect_same_results;

FunctionPtr simplified(const char* text) {
  FunctionPtr f = parse_program(text);
  FunctionPtr g = passes::dce(passes::simplify(f));
  verify(*g);
  expect_same_results(f, g);
  return g;
}

TEST(Simplify, ArithmeticIdentities) {
  FunctionPtr g = simplified(R"(
func @main(%x: f32[2,3], %i: i32[3]) -> (f32[2,3], i32[3]) {
  %0 = constant() {value=f32[] [1]} : f32[]
  %1 = broadcast_in_dim(%0) {shape=[2,3], broadcast_dimensions=[]} : f32[2,3]
  %2 = mul(%x, %1) : f32[2,3]
  %3 = mul(%1, %2) : f32[2,3]
  %4 = constant() {value=f32[2,3] [0, -0, 0, 0, 0, 0]} : f32[2,3]
  %5 = add(%3, %4) : f32[2,3]
  %6 = add(%4, %5) : f32[2,3]
  %7 = sub(%6, %4) : f32[2,3]
  %8 = div(%7, %1) : f32[2,3]
  %9 = neg(%8) : f32[2,3]
  %10 = neg(%9) : f32[2,3]
  %11 = convert(%10) {dtype=f32} : f32[2,3]
  %12 = constant() {value=i32[3] [0, 0, 0]} : i32[3]
  %13 = add(%i, %12) : i32[3]
  %14 = constant() {value=i32[3] [1, 1, 1]} : i32[3]
  %15 = mul(%13, %14) : i32[3]
  return %11, %15
})");
  EXPECT_EQ(g->nodes().size(), 2u) << print_program(*g);
  EXPECT_EQ(g->results()[0], (ValueRef{0, 0}));
  EXPECT_EQ(g->results()[1], (ValueRef{1, 0}));
}

TEST(Simplify, KeepsWhatIsNoIdentity) {
  FunctionPtr g = simplified(R"(
func @main(%x: f32[2]) -> (f32[2], f32[2], f32[2]) {
  %0 = constant() {value=f32[2] [1, 2]} : f32[2]
  %1 = mul(%x, %0) : f32[2]
  %2 = constant() {value=f32[2] [0, 0]} : f32[2]
  %3 = sub(%2, %x) : f32[2]
  %4 = mul(%x, %2) : f32[2]
  return %1, %3, %4
})");
  EXPECT_EQ(count(*g, OpCode::mul), 2) << "x*[1,2] and x*0 (NaN, -0) stay";
  EXPECT_EQ(count(*g, OpCode::sub), 1) << "0-x is a negation, not x";
}

TEST(Simplify, SelectsReductionsSlicesConcatenates) {
  FunctionPtr g = simplified(R"(
func @main(%x: f32[2,3], %y: f32[2,3], %c: bool[2,3]) -> (f32[2,3], f32[2,3], f32[2,3],
                                                         f32[2,3], f32[2,3], f32[2,3], f32[1,3]) {
  %0 = select(%c, %x, %x) : f32[2,3]
  %1 = constant() {value=bool[] [true]} : bool[]
  %2 = select(%1, %x, %y) : f32[2,3]
  %3 = constant() {value=bool[2,3] [false, false, false, false, false, false]} : bool[2,3]
  %4 = select(%3, %x, %y) : f32[2,3]
  %5 = reduce_sum(%x) {axes=[]} : f32[2,3]
  %6 = slice(%x) {start_indices=[0, 0], limit_indices=[2, 3], strides=[1, 1]} : f32[2,3]
  %7 = concatenate(%y) {dimension=0} : f32[2,3]
  %8 = slice(%x) {start_indices=[1, 0], limit_indices=[2, 3], strides=[]} : f32[1,3]
  return %0, %2, %4, %5, %6, %7, %8
})");
  std::vector<ValueRef> want = {{0, 0}, {0, 0}, {1, 0}, {0, 0}, {0, 0}, {1, 0}};
  for (size_t r = 0; r < want.size(); ++r) EXPECT_EQ(g->results()[r], want[r]) << r;
  EXPECT_EQ(count(*g, OpCode::slice), 1) << "a real slice stays";
}

TEST(Simplify, LayoutChains) {
  FunctionPtr g = simplified(R"(
func @main(%x: f32[2,3,4], %y: f32[3])
    -> (f32[2,3,4], f32[4,2,3], f32[6,4], f32[2,3,4], f32[5,3,2]) {
  %0 = transpose(%x) {permutation=[2, 0, 1]} : f32[4,2,3]
  %1 = transpose(%0) {permutation=[1, 2, 0]} : f32[2,3,4]
  %2 = transpose(%x) {permutation=[1, 0, 2]} : f32[3,2,4]
  %3 = transpose(%2) {permutation=[2, 1, 0]} : f32[4,2,3]
  %4 = reshape(%x) {new_sizes=[24]} : f32[24]
  %5 = reshape(%4) {new_sizes=[6,4]} : f32[6,4]
  %6 = reshape(%4) {new_sizes=[2,3,4]} : f32[2,3,4]
  %7 = broadcast_in_dim(%y) {shape=[3,2], broadcast_dimensions=[0]} : f32[3,2]
  %8 = broadcast_in_dim(%7) {shape=[5,3,2], broadcast_dimensions=[1, 2]} : f32[5,3,2]
  %9 = transpose(%1) {permutation=[0, 1, 2]} : f32[2,3,4]
  %10 = broadcast_in_dim(%9) {shape=[2,3,4], broadcast_dimensions=[0, 1, 2]} : f32[2,3,4]
  %11 = add(%10, %6) : f32[2,3,4]
  return %1, %3, %5, %11, %8
})");
  EXPECT_EQ(g->results()[0], (ValueRef{0, 0})) << "transpose of its inverse is x";
  EXPECT_EQ(count(*g, OpCode::transpose), 1) << print_program(*g);
  EXPECT_EQ(count(*g, OpCode::reshape), 1) << "reshape(reshape(x)) is one reshape, or x";
  EXPECT_EQ(count(*g, OpCode::broadcast_in_dim), 1) << "nested broadcasts compose";
  const Node& add = g->node(g->results()[3].node);
  EXPECT_EQ(add.operands[0], (ValueRef{0, 0})) << "identity transpose and broadcast go";
  EXPECT_EQ(add.operands[1], (ValueRef{0, 0})) << "reshape back to x's shape is x";
}

TEST(Simplify, ANarrowingConvertMovesBeforeATranspose) {
  FunctionPtr g = simplified(R"(
func @main(%w: f32[3,4], %v: f32[3,4], %b: bf16[3,4])
    -> (bf16[4,3], bf16[4,3], f32[4,3], f32[4,3]) {
  %0 = transpose(%w) {permutation=[1, 0]} : f32[4,3]
  %1 = convert(%0) {dtype=bf16} : bf16[4,3]
  %2 = transpose(%v) {permutation=[1, 0]} : f32[4,3]
  %3 = convert(%2) {dtype=bf16} : bf16[4,3]
  %4 = transpose(%b) {permutation=[1, 0]} : bf16[4,3]
  %5 = convert(%4) {dtype=f32} : f32[4,3]
  return %1, %3, %2, %5
})");
  const Node& moved = g->node(g->results()[0].node);
  ASSERT_EQ(moved.op, OpCode::transpose) << print_program(*g);
  const Node& narrowed = g->node(moved.operands[0].node);
  EXPECT_EQ(narrowed.op, OpCode::convert) << print_program(*g);
  EXPECT_EQ(narrowed.operands[0], (ValueRef{0, 0})) << "the convert reads w itself";
  EXPECT_EQ(g->node(g->results()[1].node).op, OpCode::convert)
      << "a transpose with another reader stays before its convert: " << print_program(*g);
  EXPECT_EQ(g->node(g->results()[3].node).op, OpCode::convert)
      << "a widening convert stays after its transpose: " << print_program(*g);
}

TEST(Simplify, DotGeneralAbsorbsTransposes) {
  FunctionPtr g = simplified(R"(
func @main(%a: f32[3,2], %b: f32[4,3], %c: f32[2,4,3], %d: f32[2,3,5]) -> (f32[2,4], f32[2,4,5]) {
  %0 = transpose(%a) {permutation=[1, 0]} : f32[2,3]
  %1 = transpose(%b) {permutation=[1, 0]} : f32[3,4]
  %2 = dot_general(%0, %1) {lhs_batch=[], rhs_batch=[],
      lhs_contracting=[1], rhs_contracting=[0]} : f32[2,4]
  %3 = transpose(%c) {permutation=[0, 2, 1]} : f32[2,3,4]
  %4 = dot_general(%3, %d) {lhs_batch=[0], rhs_batch=[0],
      lhs_contracting=[1], rhs_contracting=[1]} : f32[2,4,5]
  return %2, %4
})");
  EXPECT_EQ(count(*g, OpCode::transpose), 0) << print_program(*g);
  const auto& at = g->node(g->results()[0].node).attr<DotGeneralAttrs>();
  EXPECT_EQ(at.lhs_contracting, IntList{0});
  EXPECT_EQ(at.rhs_contracting, IntList{1});
}

TEST(Simplify, DotGeneralKeepsATransposeThatReordersFreeDims) {
  FunctionPtr g = simplified(R"(
func @main(%a: f32[3,2,4], %b: f32[2]) -> (f32[4,3]) {
  %0 = transpose(%a) {permutation=[2, 0, 1]} : f32[4,3,2]
  %1 = dot_general(%0, %b) {lhs_batch=[], rhs_batch=[],
      lhs_contracting=[2], rhs_contracting=[0]} : f32[4,3]
  return %1
})");
  EXPECT_EQ(count(*g, OpCode::transpose), 1) << "folding would turn the result into [3,4]";
}

// A transpose that swaps a dot_general's free dims (the weight gradient of a linear layer) is
// the dot with its operands swapped, when nothing else reads the dot.
TEST(Simplify, TransposedDotGeneralSwapsItsOperands) {
  FunctionPtr g = simplified(R"(
func @main(%x: f32[6,3], %y: f32[6,4], %a: f32[2,3,4], %b: f32[2,4,5]) -> (f32[4,3], f32[2,5,3]) {
  %0 = dot_general(%x, %y) {lhs_batch=[], rhs_batch=[],
      lhs_contracting=[0], rhs_contracting=[0]} : f32[3,4]
  %1 = transpose(%0) {permutation=[1, 0]} : f32[4,3]
  %2 = dot_general(%a, %b) {lhs_batch=[0], rhs_batch=[0],
      lhs_contracting=[2], rhs_contracting=[1]} : f32[2,3,5]
  %3 = transpose(%2) {permutation=[0, 2, 1]} : f32[2,5,3]
  return %1, %3
})");
  EXPECT_EQ(count(*g, OpCode::transpose), 0) << print_program(*g);
  EXPECT_EQ(count(*g, OpCode::dot_general), 2);
  const Node& d = g->node(g->results()[0].node);
  EXPECT_EQ(d.operands[0], (ValueRef{1, 0})) << "y first";
}

// Under Autocast a weight gradient is a bf16 dot_general widened to f32, then transposed: the
// transpose moves before the widening convert and then into the GEMM, which swaps its operands.
TEST(Simplify, ATransposeOfAWidenedDotGeneralFoldsIntoTheGemm) {
  FunctionPtr f = parse_program(R"(
func @main(%x: bf16[6,3], %y: bf16[6,4], %b: bf16[3,4]) -> (f32[4,3], f32[4,3]) {
  %0 = dot_general(%x, %y) {lhs_batch=[], rhs_batch=[],
      lhs_contracting=[0], rhs_contracting=[0]} : bf16[3,4]
  %1 = convert(%0) {dtype=f32} : f32[3,4]
  %2 = transpose(%1) {permutation=[1, 0]} : f32[4,3]
  %3 = convert(%b) {dtype=f32} : f32[3,4]
  %4 = transpose(%3) {permutation=[1, 0]} : f32[4,3]
  return %2, %4
})");
  FunctionPtr g = passes::optimize(f);
  expect_same_results(f, g);
  const Node& c = g->node(g->results()[0].node);
  ASSERT_EQ(c.op, OpCode::convert) << print_program(*g);
  const Node& d = g->node(c.operands[0].node);
  ASSERT_EQ(d.op, OpCode::dot_general) << print_program(*g);
  EXPECT_EQ(d.operands[0], (ValueRef{1, 0})) << "y first: " << print_program(*g);
  const Node& w = g->node(g->results()[1].node);
  ASSERT_EQ(w.op, OpCode::convert) << "the other widening convert moves after its transpose too";
  EXPECT_EQ(g->node(w.operands[0].node).op, OpCode::transpose) << print_program(*g);
  EXPECT_EQ(g->type(w.operands[0]).dtype, DType::bf16) << "the transpose moves bf16 values";
  EXPECT_EQ(count(*g, OpCode::transpose), 1) << print_program(*g);
}

TEST(Simplify, TransposedDotGeneralReadElsewhereStays) {
  FunctionPtr g = simplified(R"(
func @main(%x: f32[6,3], %y: f32[6,4]) -> (f32[4,3], f32[3,4]) {
  %0 = dot_general(%x, %y) {lhs_batch=[], rhs_batch=[],
      lhs_contracting=[0], rhs_contracting=[0]} : f32[3,4]
  %1 = transpose(%0) {permutation=[1, 0]} : f32[4,3]
  return %1, %0
})");
  EXPECT_EQ(count(*g, OpCode::transpose), 1) << "one GEMM and a copy, not two GEMMs";
  EXPECT_EQ(count(*g, OpCode::dot_general), 1);
}

// A pad node's line: `out` = x padded with `zero` by lo and hi on each dim (no interior padding).
std::string pad(const char* out, const char* x, const char* zero, const char* lo, const char* hi,
                const char* type) {
  return std::string("  ") + out + " = pad(" + x + ", " + zero + ") {edge_padding_low=" + lo +
         ", edge_padding_high=" + hi + ", interior_padding=[0,0]} : " + type;
}

// A program's text from its lines.
FunctionPtr simplified_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return simplified(text.c_str());
}

// The VJP of three slices of one value along dim 1 (narrow's pads summed, in the tape's reverse
// order) is their concatenation; a sum of pads that leaves a gap, pads along two dims, a
// nonzero padding value or a pad with another reader stay.
TEST(Simplify, ASumOfPadsSideBySideIsTheirConcatenation) {
  const std::string zero = "  %0 = constant() {value=f32[] [0]} : f32[]";
  FunctionPtr g = simplified_lines({
      "func @main(%a: f32[2,1], %b: f32[2,2], %c: f32[2,3]) -> (f32[2,6]) {",
      zero,
      pad("%1", "%c", "%0", "[0,3]", "[0,0]", "f32[2,6]"),
      pad("%2", "%b", "%0", "[0,1]", "[0,3]", "f32[2,6]"),
      "  %3 = add(%1, %2) : f32[2,6]",
      pad("%4", "%a", "%0", "[0,0]", "[0,5]", "f32[2,6]"),
      "  %5 = add(%3, %4) : f32[2,6]",
      "  return %5",
      "}",
  });
  EXPECT_EQ(count(*g, OpCode::pad), 0) << print_program(*g);
  EXPECT_EQ(count(*g, OpCode::add), 0) << print_program(*g);
  ASSERT_EQ(count(*g, OpCode::concatenate), 1) << print_program(*g);
  EXPECT_EQ(g->node(g->results()[0].node).operands.size(), 3u) << print_program(*g);

  FunctionPtr part = simplified_lines({
      "func @main(%a: f32[2,1], %b: f32[2,2]) -> (f32[2,6]) {",
      zero,
      pad("%1", "%a", "%0", "[0,1]", "[0,4]", "f32[2,6]"),
      pad("%2", "%b", "%0", "[0,2]", "[0,2]", "f32[2,6]"),
      "  %3 = add(%2, %1) : f32[2,6]",
      "  return %3",
      "}",
  });
  EXPECT_EQ(count(*part, OpCode::add), 0) << print_program(*part);
  EXPECT_EQ(count(*part, OpCode::pad), 1)
      << "one pad of the concatenation: " << print_program(*part);

  FunctionPtr kept = simplified_lines({
      "func @main(%a: f32[2,1], %b: f32[1,2], %c: f32[2,2])",
      "    -> (f32[2,4], f32[2,4], f32[2,4], f32[2,4]) {",
      zero,
      "  %1 = constant() {value=f32[] [1]} : f32[]",
      pad("%2", "%a", "%0", "[0,0]", "[0,3]", "f32[2,4]"),  // a gap between %2 and %3
      pad("%3", "%a", "%0", "[0,2]", "[0,1]", "f32[2,4]"),
      "  %4 = add(%2, %3) : f32[2,4]",
      pad("%5", "%b", "%0", "[1,1]", "[0,1]", "f32[2,4]"),  // padded along two dims
      pad("%6", "%a", "%0", "[0,0]", "[0,3]", "f32[2,4]"),
      "  %7 = add(%6, %5) : f32[2,4]",
      pad("%8", "%c", "%1", "[0,2]", "[0,0]", "f32[2,4]"),  // padded with ones
      pad("%9", "%c", "%0", "[0,0]", "[0,2]", "f32[2,4]"),
      "  %10 = add(%9, %8) : f32[2,4]",
      pad("%11", "%c", "%0", "[0,2]", "[0,0]", "f32[2,4]"),
      "  %12 = add(%9, %11) : f32[2,4]",  // %9 has another reader
      "  return %4, %7, %10, %12",
      "}",
  });
  EXPECT_EQ(count(*kept, OpCode::add), 4) << print_program(*kept);
}

}  // namespace
}  // namespace lazax
