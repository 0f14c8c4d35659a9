// Reference-interpreter tests of call, cond, while, scan and the value-preserving ops
// (checkpoint_name, optimization_barrier, copy_to_memory_kind).
#include <gtest/gtest.h>

#include "lazax/interp/interpreter.h"
#include "lazax/ir/builder.h"

using namespace lazax;

namespace {

const TensorType kF32{DType::f32, Shape{}};
const TensorType kI32{DType::i32, Shape{}};

ValueRef scalar_const(Builder& b, float v) { return b.constant(Literal::scalar<float>(v)); }
ValueRef scalar_const(Builder& b, int32_t v) { return b.constant(Literal::scalar<int32_t>(v)); }

// f(x: f32[]) = op(x, c) or -x.
FunctionPtr f32_branch(const char* name, OpCode op, float c) {
  Builder b(name);
  auto x = b.param(kF32);
  auto y = op == OpCode::neg ? b.add(op, {x}) : b.add(op, {x, scalar_const(b, c)});
  return b.build({y});
}

float run_cond(const Literal& index, std::vector<FunctionPtr> branches, float x) {
  Builder b;
  auto pi = b.param(index.type);
  auto px = b.param(kF32);
  auto y = b.add(OpCode::cond, {pi, px}, CondAttrs{std::move(branches)});
  auto f = b.build({y});
  return interpret(*f, std::vector<Literal>{index, Literal::scalar<float>(x)})
      .at(0)
      .data<float>()[0];
}

}  // namespace

TEST(InterpControl, CallRunsTheCallee) {
  Builder cb("callee");
  auto x = cb.param(kF32);
  auto y = cb.param(kF32);
  auto callee = cb.build({cb.add(OpCode::add, {x, y}), cb.add(OpCode::mul, {x, y})});

  Builder b;
  auto px = b.param(kF32);
  auto py = b.param(kF32);
  auto outs = b.add_multi(OpCode::call, {px, py}, CallAttrs{callee});
  auto f = b.build(outs);
  auto r =
      interpret(*f, std::vector<Literal>{Literal::scalar<float>(3), Literal::scalar<float>(4)});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].data<float>()[0], 7.0f);
  EXPECT_EQ(r[1].data<float>()[0], 12.0f);
}

TEST(InterpControl, CondWithBoolIndex) {
  std::vector<FunctionPtr> br = {f32_branch("plus1", OpCode::add, 1),
                                 f32_branch("times2", OpCode::mul, 2)};
  EXPECT_EQ(run_cond(Literal::scalar<bool>(false), br, 5), 6.0f);
  EXPECT_EQ(run_cond(Literal::scalar<bool>(true), br, 5), 10.0f);
}

TEST(InterpControl, CondWithIntIndexClamps) {
  std::vector<FunctionPtr> br = {f32_branch("plus1", OpCode::add, 1),
                                 f32_branch("times2", OpCode::mul, 2),
                                 f32_branch("negate", OpCode::neg, 0)};
  EXPECT_EQ(run_cond(Literal::scalar<int32_t>(0), br, 5), 6.0f);
  EXPECT_EQ(run_cond(Literal::scalar<int32_t>(1), br, 5), 10.0f);
  EXPECT_EQ(run_cond(Literal::scalar<int32_t>(2), br, 5), -5.0f);
  EXPECT_EQ(run_cond(Literal::scalar<int32_t>(-7), br, 5), 6.0f);    // clamped to 0
  EXPECT_EQ(run_cond(Literal::scalar<int32_t>(100), br, 5), -5.0f);  // clamped to 2
  std::vector<FunctionPtr> one = {f32_branch("only", OpCode::mul, 3)};
  EXPECT_EQ(run_cond(Literal::scalar<int32_t>(4), one, 5), 15.0f);
}

TEST(InterpControl, WhileSumsOneToTen) {
  const std::vector<TensorType> carry = {kI32, kI32};  // (i, sum)
  Builder cb("i_le_10");
  auto ci = cb.param(kI32);
  cb.param(kI32);
  auto cond = cb.build(
      {cb.add(OpCode::compare, {ci, scalar_const(cb, int32_t{10})}, CompareAttrs{CompareDir::le})});
  Builder bb("step");
  auto bi = bb.param(kI32);
  auto bs = bb.param(kI32);
  auto body = bb.build(
      {bb.add(OpCode::add, {bi, scalar_const(bb, int32_t{1})}), bb.add(OpCode::add, {bs, bi})});

  Builder b;
  auto i0 = b.param(kI32);
  auto s0 = b.param(kI32);
  auto outs = b.add_multi(OpCode::while_, {i0, s0}, WhileAttrs{cond, body});
  auto f = b.build(outs);
  auto r =
      interpret(*f, std::vector<Literal>{Literal::scalar<int32_t>(1), Literal::scalar<int32_t>(0)});
  EXPECT_EQ(r[0].data<int32_t>()[0], 11);
  EXPECT_EQ(r[1].data<int32_t>()[0], 55);
  // A false condition at the start runs the body zero times.
  auto r0 = interpret(
      *f, std::vector<Literal>{Literal::scalar<int32_t>(11), Literal::scalar<int32_t>(3)});
  EXPECT_EQ(r0[0].data<int32_t>()[0], 11);
  EXPECT_EQ(r0[1].data<int32_t>()[0], 3);
}

namespace {

// scan over (c: f32, n: i32; x: f32[3], m: f32[3,2]):
//   body(c, n, x, m) = (c + x, n + 1; y0 = c, y1 = m * m)
std::vector<Literal> run_scan(bool reverse, int64_t length) {
  const TensorType row{DType::f32, Shape{2}};
  Builder bb("body");
  auto c = bb.param(kF32);
  auto n = bb.param(kI32);
  auto x = bb.param(kF32);
  auto m = bb.param(row);
  auto body =
      bb.build({bb.add(OpCode::add, {c, x}), bb.add(OpCode::add, {n, scalar_const(bb, int32_t{1})}),
                c, bb.add(OpCode::mul, {m, m})});
  Builder b;
  auto pc = b.param(kF32);
  auto pn = b.param(kI32);
  auto px = b.param(TensorType{DType::f32, Shape{length}});
  auto pm = b.param(TensorType{DType::f32, Shape{length, 2}});
  auto outs = b.add_multi(OpCode::scan, {pc, pn, px, pm}, ScanAttrs{body, length, 2, reverse});
  auto f = b.build(outs);
  std::vector<float> xs, ms;
  for (int64_t i = 0; i < length; ++i) {
    xs.push_back(static_cast<float>(i + 1));
    ms.push_back(static_cast<float>(i));
    ms.push_back(static_cast<float>(-i - 1));
  }
  return interpret(*f, std::vector<Literal>{Literal::scalar<float>(10), Literal::scalar<int32_t>(0),
                                            Literal::from_vector<float>(xs, Shape{length}),
                                            Literal::from_vector<float>(ms, Shape{length, 2})});
}

}  // namespace

TEST(InterpControl, ScanForward) {
  auto r = run_scan(false, 3);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].data<float>()[0], 16.0f);
  EXPECT_EQ(r[1].data<int32_t>()[0], 3);
  EXPECT_EQ(r[2].type, (TensorType{DType::f32, Shape{3}}));
  EXPECT_EQ(r[2].to_vector<float>(), (std::vector<float>{10, 11, 13}));
  EXPECT_EQ(r[3].type, (TensorType{DType::f32, Shape{3, 2}}));
  EXPECT_EQ(r[3].to_vector<float>(), (std::vector<float>{0, 1, 1, 4, 4, 9}));
}

TEST(InterpControl, ScanReverse) {
  auto r = run_scan(true, 3);
  EXPECT_EQ(r[0].data<float>()[0], 16.0f);
  EXPECT_EQ(r[1].data<int32_t>()[0], 3);
  // Iterates x = 3, 2, 1 and stores each y at its x's index.
  EXPECT_EQ(r[2].to_vector<float>(), (std::vector<float>{15, 13, 10}));
  EXPECT_EQ(r[3].to_vector<float>(), (std::vector<float>{0, 1, 1, 4, 4, 9}));
}

TEST(InterpControl, ScanZeroLength) {
  auto r = run_scan(false, 0);
  EXPECT_EQ(r[0].data<float>()[0], 10.0f);
  EXPECT_EQ(r[1].data<int32_t>()[0], 0);
  EXPECT_EQ(r[2].type, (TensorType{DType::f32, Shape{0}}));
  EXPECT_EQ(r[3].type, (TensorType{DType::f32, Shape{0, 2}}));
}

TEST(InterpControl, ScanWithoutXsOrWithoutCarry) {
  // Carry only: c -> 2c, four times.
  Builder bb("double");
  auto c = bb.param(kF32);
  auto dbl = bb.build({bb.add(OpCode::add, {c, c})});
  Builder b;
  auto pc = b.param(kF32);
  auto f = b.build(b.add_multi(OpCode::scan, {pc}, ScanAttrs{dbl, 4, 1, false}));
  EXPECT_EQ(interpret(*f, std::vector<Literal>{Literal::scalar<float>(3)})[0].data<float>()[0],
            48.0f);

  // xs only: ys = -xs.
  Builder nb("neg");
  auto x = nb.param(kI32);
  auto neg = nb.build({nb.add(OpCode::neg, {x})});
  Builder b2;
  auto px = b2.param(TensorType{DType::i32, Shape{3}});
  auto g = b2.build(b2.add_multi(OpCode::scan, {px}, ScanAttrs{neg, 3, 0, true}));
  auto r = interpret(*g, std::vector<Literal>{Literal::from_vector<int32_t>({1, 2, 3}, Shape{3})});
  EXPECT_EQ(r.at(0).to_vector<int32_t>(), (std::vector<int32_t>{-1, -2, -3}));
}

TEST(InterpControl, IdentityOps) {
  const TensorType t{DType::f32, Shape{2}};
  Builder b;
  auto x = b.param(t);
  auto y = b.param(kI32);
  auto named = b.add(OpCode::checkpoint_name, {x}, CheckpointNameAttrs{"h"});
  auto barrier = b.add_multi(OpCode::optimization_barrier, {named, y});
  auto host = b.add(OpCode::copy_to_memory_kind, {barrier[0]}, MemoryKindAttrs{MemoryKind::host});
  auto f = b.build({barrier[0], barrier[1], host});
  auto in = Literal::from_vector<float>({1.5f, -2}, Shape{2});
  auto r = interpret(*f, std::vector<Literal>{in, Literal::scalar<int32_t>(9)});
  EXPECT_TRUE(r[0].bit_equal(in));
  EXPECT_EQ(r[1].data<int32_t>()[0], 9);
  EXPECT_TRUE(r[2].bit_equal(in));
  EXPECT_EQ(r[2].buffer.memory_kind(), MemoryKind::host);
  EXPECT_NE(r[2].buffer.id(), in.buffer.id());  // a copy, not an alias
  EXPECT_EQ(in.buffer.memory_kind(), MemoryKind::device);
}

TEST(InterpControl, CopyOfEmptyTensor) {
  const TensorType t{DType::f32, Shape{0, 3}};
  Builder b;
  auto x = b.param(t);
  auto f = b.build({b.add(OpCode::copy_to_memory_kind, {x}, MemoryKindAttrs{MemoryKind::host})});
  auto r = interpret(*f, std::vector<Literal>{Literal::zeros(t)});
  EXPECT_EQ(r[0].type, t);
  EXPECT_EQ(r[0].buffer.memory_kind(), MemoryKind::host);
}

TEST(InterpControl, MalformedNodesThrow) {
  // Hand-built (no shape rule): scan whose num_carry exceeds its operands, and a cond whose
  // index is a float.
  std::vector<Node> nodes(2);
  nodes[0].op = OpCode::parameter;
  nodes[0].attrs = ParameterAttrs{0};
  nodes[0].outputs = {kF32};
  nodes[1].op = OpCode::scan;
  nodes[1].attrs = ScanAttrs{f32_branch("b", OpCode::neg, 0), 2, 3, false};
  nodes[1].operands = {ValueRef{0, 0}};
  nodes[1].outputs = {kF32};
  Function f("bad", nodes, 1, {ValueRef{1, 0}});
  std::vector<Literal> args{Literal::scalar<float>(1)};
  EXPECT_THROW(interpret(f, args), Error);

  nodes[1].op = OpCode::cond;
  nodes[1].attrs = CondAttrs{{f32_branch("b", OpCode::neg, 0)}};
  nodes[1].operands = {ValueRef{0, 0}, ValueRef{0, 0}};
  Function g("bad2", nodes, 1, {ValueRef{1, 0}});
  EXPECT_THROW(interpret(g, args), Error);

  nodes[1].op = OpCode::call;
  nodes[1].attrs = CallAttrs{nullptr};
  nodes[1].operands = {ValueRef{0, 0}};
  Function h("bad3", nodes, 1, {ValueRef{1, 0}});
  EXPECT_THROW(interpret(h, args), Error);
}
