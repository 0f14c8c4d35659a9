// Reference-interpreter tests of dot_general: hand-computed products, batch matmul, several
// dtypes, empty and rank-0 shapes, and malformed nodes that must throw.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "lazax/interp/interpreter.h"
#include "lazax/ir/builder.h"

using namespace lazax;

namespace {

DotGeneralAttrs dims(IntList lb, IntList rb, IntList lc, IntList rc) {
  return DotGeneralAttrs{std::move(lb), std::move(rb), std::move(lc), std::move(rc)};
}

// Runs dot_general(lhs, rhs) built with Builder.
Literal run_dot(const Literal& lhs, const Literal& rhs, DotGeneralAttrs a) {
  Builder b;
  auto x = b.param(lhs.type);
  auto y = b.param(rhs.type);
  auto z = b.add(OpCode::dot_general, {x, y}, std::move(a));
  auto f = b.build({z});
  auto out = interpret(*f, std::vector<Literal>{lhs, rhs});
  return out.at(0);
}

}  // namespace

TEST(InterpDot, Matmul) {
  auto lhs = Literal::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto rhs = Literal::from_vector<float>({7, 8, 9, 10, 11, 12}, Shape{3, 2});
  auto out = run_dot(lhs, rhs, dims({}, {}, {1}, {0}));
  EXPECT_EQ(out.type, (TensorType{DType::f32, Shape{2, 2}}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{58, 64, 139, 154}));
  // Inputs untouched.
  EXPECT_EQ(lhs.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(InterpDot, BatchMatmul) {
  auto lhs = Literal::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 2, 2});
  auto rhs = Literal::from_vector<float>({1, 1, 1, 2}, Shape{2, 2, 1});
  auto out = run_dot(lhs, rhs, dims({0}, {0}, {2}, {1}));
  EXPECT_EQ(out.shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{3, 7, 17, 23}));
}

TEST(InterpDot, BatchDimNotLeading) {
  // lhs [k=2, b=2], rhs [b=2, k=2]: batch dims 1 and 0; result [b].
  auto lhs = Literal::from_vector<float>({1, 2, 3, 4}, Shape{2, 2});  // b0: (1,3), b1: (2,4)
  auto rhs = Literal::from_vector<float>({5, 6, 7, 8}, Shape{2, 2});  // b0: (5,6), b1: (7,8)
  auto out = run_dot(lhs, rhs, dims({1}, {0}, {0}, {1}));
  EXPECT_EQ(out.shape(), (Shape{2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1 * 5 + 3 * 6, 2 * 7 + 4 * 8}));
}

TEST(InterpDot, FreeDimsOrderLhsThenRhs) {
  // Contract the leading dims: result = lhs^T rhs, [2,2].
  auto lhs = Literal::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  auto rhs = Literal::from_vector<float>({1, 0, 0, 1, 1, 1}, Shape{3, 2});
  auto out = run_dot(lhs, rhs, dims({}, {}, {0}, {0}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1 + 5, 3 + 5, 2 + 6, 4 + 6}));
}

TEST(InterpDot, VectorDotIsRankZero) {
  auto lhs = Literal::from_vector<int32_t>({1, 2, 3}, Shape{3});
  auto rhs = Literal::from_vector<int32_t>({4, 5, 6}, Shape{3});
  auto out = run_dot(lhs, rhs, dims({}, {}, {0}, {0}));
  EXPECT_EQ(out.type, (TensorType{DType::i32, Shape{}}));
  EXPECT_EQ(out.data<int32_t>()[0], 32);
}

TEST(InterpDot, OuterProductWithoutContraction) {
  auto lhs = Literal::from_vector<double>({1, 2}, Shape{2});
  auto rhs = Literal::from_vector<double>({3, 4, 5}, Shape{3});
  auto out = run_dot(lhs, rhs, dims({}, {}, {}, {}));
  EXPECT_EQ(out.type, (TensorType{DType::f64, Shape{2, 3}}));
  EXPECT_EQ(out.to_vector<double>(), (std::vector<double>{3, 4, 5, 6, 8, 10}));
}

TEST(InterpDot, ScalarTimesScalar) {
  auto out = run_dot(Literal::scalar<float>(3), Literal::scalar<float>(-2), dims({}, {}, {}, {}));
  EXPECT_EQ(out.shape(), Shape{});
  EXPECT_EQ(out.data<float>()[0], -6.0f);
}

TEST(InterpDot, TwoContractingDims) {
  auto lhs = Literal::from_vector<int64_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto rhs = Literal::from_vector<int64_t>({6, 5, 4, 3, 2, 1}, Shape{2, 3});
  auto out = run_dot(lhs, rhs, dims({}, {}, {0, 1}, {0, 1}));
  EXPECT_EQ(out.data<int64_t>()[0], 6 + 10 + 12 + 12 + 10 + 6);
  // Contracting dims paired in a crossed order: lhs (1, 0) with rhs (1, 0) is the same sum.
  auto crossed = run_dot(lhs, rhs, dims({}, {}, {1, 0}, {1, 0}));
  EXPECT_EQ(crossed.data<int64_t>()[0], 56);
}

TEST(InterpDot, EmptyContractionGivesZeros) {
  auto lhs = Literal::zeros(TensorType{DType::f32, Shape{2, 0}});
  auto rhs = Literal::zeros(TensorType{DType::f32, Shape{0, 3}});
  auto out = run_dot(lhs, rhs, dims({}, {}, {1}, {0}));
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(6, 0.0f));
}

TEST(InterpDot, EmptyResult) {
  auto lhs = Literal::zeros(TensorType{DType::f32, Shape{0, 3}});
  auto rhs = Literal::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  auto out = run_dot(lhs, rhs, dims({}, {}, {1}, {0}));
  EXPECT_EQ(out.shape(), (Shape{0, 2}));
  EXPECT_EQ(out.numel(), 0);
}

TEST(InterpDot, AccumulatesInDouble) {
  // In float, 1e8 + 1 rounds back to 1e8 and the sum would be 0.
  auto lhs = Literal::from_vector<float>({1e8f, 1, -1e8f}, Shape{3});
  auto rhs = Literal::from_vector<float>({1, 1, 1}, Shape{3});
  EXPECT_EQ(run_dot(lhs, rhs, dims({}, {}, {0}, {0})).data<float>()[0], 1.0f);
}

TEST(InterpDot, HalfPrecision) {
  auto l16 = Literal::zeros(TensorType{DType::f16, Shape{2}});
  auto r16 = Literal::zeros(TensorType{DType::f16, Shape{2}});
  l16.data<f16>()[0] = f16(1.5f);
  l16.data<f16>()[1] = f16(2.0f);
  r16.data<f16>()[0] = f16(4.0f);
  r16.data<f16>()[1] = f16(-0.25f);
  auto o16 = run_dot(l16, r16, dims({}, {}, {0}, {0}));
  EXPECT_EQ(o16.dtype(), DType::f16);
  EXPECT_EQ(static_cast<float>(o16.data<f16>()[0]), 5.5f);

  auto lb = Literal::zeros(TensorType{DType::bf16, Shape{1, 2}});
  auto rb = Literal::zeros(TensorType{DType::bf16, Shape{2, 1}});
  lb.data<bf16>()[0] = bf16(3.0f);
  lb.data<bf16>()[1] = bf16(0.5f);
  rb.data<bf16>()[0] = bf16(2.0f);
  rb.data<bf16>()[1] = bf16(8.0f);
  auto ob = run_dot(lb, rb, dims({}, {}, {1}, {0}));
  EXPECT_EQ(ob.type, (TensorType{DType::bf16, Shape{1, 1}}));
  EXPECT_EQ(static_cast<float>(ob.data<bf16>()[0]), 10.0f);
}

TEST(InterpDot, IntegerTypes) {
  auto l64 = Literal::from_vector<int64_t>({3'000'000'000LL, -2}, Shape{2});
  auto r64 = Literal::from_vector<int64_t>({3, 5}, Shape{2});
  EXPECT_EQ(run_dot(l64, r64, dims({}, {}, {0}, {0})).data<int64_t>()[0], 8'999'999'990LL);

  auto l8 = Literal::from_vector<uint8_t>({10, 20}, Shape{2});
  auto r8 = Literal::from_vector<uint8_t>({3, 4}, Shape{2});
  EXPECT_EQ(run_dot(l8, r8, dims({}, {}, {0}, {0})).data<uint8_t>()[0], 110);

  // i32 results wrap modulo 2^32, as two's-complement hardware does: 65536 * 65536 = 2^32 -> 0.
  auto big = Literal::from_vector<int32_t>({65536, 3}, Shape{2});
  auto other = Literal::from_vector<int32_t>({65536, -1}, Shape{2});
  EXPECT_EQ(run_dot(big, other, dims({}, {}, {0}, {0})).data<int32_t>()[0], -3);
}

TEST(InterpDot, NanPropagates) {
  auto lhs = Literal::from_vector<float>({std::numeric_limits<float>::quiet_NaN(), 1}, Shape{2});
  auto rhs = Literal::from_vector<float>({0, 1}, Shape{2});
  EXPECT_TRUE(std::isnan(run_dot(lhs, rhs, dims({}, {}, {0}, {0})).data<float>()[0]));
}

TEST(InterpDot, MalformedNodeThrows) {
  // A Function built by hand (no shape rule) with an out-of-range contracting dim.
  TensorType t{DType::f32, Shape{2, 2}};
  std::vector<Node> nodes(3);
  nodes[0].op = OpCode::parameter;
  nodes[0].attrs = ParameterAttrs{0};
  nodes[0].outputs = {t};
  nodes[1] = nodes[0];
  nodes[1].attrs = ParameterAttrs{1};
  nodes[2].op = OpCode::dot_general;
  nodes[2].attrs = dims({}, {}, {5}, {0});
  nodes[2].operands = {ValueRef{0, 0}, ValueRef{1, 0}};
  nodes[2].outputs = {t};
  Function f("bad", nodes, 2, {ValueRef{2, 0}});
  auto x = Literal::zeros(t);
  EXPECT_THROW(interpret(f, std::vector<Literal>{x, x}), Error);

  // Right dims but a wrong declared result shape.
  nodes[2].attrs = dims({}, {}, {1}, {0});
  nodes[2].outputs = {TensorType{DType::f32, Shape{3}}};
  Function g("bad2", nodes, 2, {ValueRef{2, 0}});
  EXPECT_THROW(interpret(g, std::vector<Literal>{x, x}), Error);

  // Wrong attribute struct.
  nodes[2].attrs = NoAttrs{};
  Function h("bad3", nodes, 2, {ValueRef{2, 0}});
  EXPECT_THROW(interpret(h, std::vector<Literal>{x, x}), Error);
}
