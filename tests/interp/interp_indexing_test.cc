// Reference-interpreter tests of gather and scatter_add: embedding lookups, multi-dim index
// vectors, out-of-bounds and negative indices in both modes, fill values per dtype, duplicate
// scatter indices, empty and rank-0 shapes, and inputs left untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "lazax/interp/interpreter.h"
#include "lazax/ir/builder.h"

using namespace lazax;

namespace {

Literal run_gather(const Literal& x, const Literal& idx, GatherAttrs a) {
  Builder b;
  auto px = b.param(x.type);
  auto pi = b.param(idx.type);
  auto f = b.build({b.add(OpCode::gather, {px, pi}, std::move(a))});
  return interpret(*f, std::vector<Literal>{x, idx}).at(0);
}

Literal run_scatter(const Literal& x, const Literal& idx, const Literal& upd, ScatterAttrs a) {
  Builder b;
  auto px = b.param(x.type);
  auto pi = b.param(idx.type);
  auto pu = b.param(upd.type);
  auto f = b.build({b.add(OpCode::scatter_add, {px, pi, pu}, std::move(a))});
  return interpret(*f, std::vector<Literal>{x, idx, upd}).at(0);
}

// Row lookup in a [V, D] table with indices [N, 1] (an embedding).
GatherAttrs rows(int64_t d, GatherMode mode) { return GatherAttrs{{1}, {0}, {0}, {1, d}, mode}; }
ScatterAttrs row_updates(GatherMode mode) { return ScatterAttrs{{1}, {0}, {0}, mode}; }

Literal iota_f32(Shape s) {
  std::vector<float> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return Literal::from_vector<float>(v, s);
}

bool all_nan(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isnan(x)) return false;
  return true;
}

std::vector<float> part(const std::vector<float>& v, size_t from, size_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from),
          v.begin() + static_cast<std::ptrdiff_t>(from + n)};
}

}  // namespace

TEST(InterpGather, Embedding) {
  auto table = iota_f32(Shape{4, 3});
  auto idx = Literal::from_vector<int32_t>({2, 0, 3}, Shape{3, 1});
  auto out = run_gather(table, idx, rows(3, GatherMode::fill));
  EXPECT_EQ(out.type, (TensorType{DType::f32, Shape{3, 3}}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{6, 7, 8, 0, 1, 2, 9, 10, 11}));
  EXPECT_EQ(table.to_vector<float>(), iota_f32(Shape{4, 3}).to_vector<float>());
}

TEST(InterpGather, EmbeddingOutOfBoundsFill) {
  auto table = iota_f32(Shape{4, 3});
  auto idx = Literal::from_vector<int64_t>({1, 4, -1}, Shape{3, 1});
  auto out = run_gather(table, idx, rows(3, GatherMode::fill)).to_vector<float>();
  EXPECT_EQ(part(out, 0, 3), (std::vector<float>{3, 4, 5}));
  EXPECT_TRUE(all_nan(part(out, 3, 6)));  // 4 is past the end, -1 is not wrapped
}

TEST(InterpGather, EmbeddingOutOfBoundsClip) {
  auto table = iota_f32(Shape{4, 3});
  auto idx = Literal::from_vector<int32_t>({1, 4, -1, 1000000}, Shape{4, 1});
  auto out = run_gather(table, idx, rows(3, GatherMode::clip));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{3, 4, 5, 9, 10, 11, 0, 1, 2, 9, 10, 11}));
}

TEST(InterpGather, FillValuePerDType) {
  auto idx = Literal::from_vector<int32_t>({0, 7}, Shape{2, 1});
  GatherAttrs a{{}, {0}, {0}, {1}, GatherMode::fill};
  auto i32 = run_gather(Literal::from_vector<int32_t>({5, 6}, Shape{2}), idx, a);
  EXPECT_EQ(i32.to_vector<int32_t>(),
            (std::vector<int32_t>{5, std::numeric_limits<int32_t>::min()}));
  auto i64 = run_gather(Literal::from_vector<int64_t>({5, 6}, Shape{2}), idx, a);
  EXPECT_EQ(i64.data<int64_t>()[1], std::numeric_limits<int64_t>::min());
  auto u8 = run_gather(Literal::from_vector<uint8_t>({5, 6}, Shape{2}), idx, a);
  EXPECT_EQ(u8.to_vector<int>(), (std::vector<int>{5, 255}));
  auto i8 = run_gather(Literal::from_vector<int8_t>({5, 6}, Shape{2}), idx, a);
  EXPECT_EQ(i8.to_vector<int>(), (std::vector<int>{5, -128}));
  auto u32 = run_gather(Literal::from_vector<uint32_t>({5, 6}, Shape{2}), idx, a);
  EXPECT_EQ(u32.to_vector<int64_t>(), (std::vector<int64_t>{5, 4294967295}));
  auto bl = run_gather(Literal::from_vector<bool>({false, false}, Shape{2}), idx, a);
  EXPECT_EQ(bl.data<bool>()[0], false);
  EXPECT_EQ(bl.data<bool>()[1], true);
  auto h = Literal::zeros(TensorType{DType::f16, Shape{2}});
  h.data<f16>()[0] = f16(1.5f);
  auto hf = run_gather(h, idx, a);
  EXPECT_EQ(static_cast<float>(hf.data<f16>()[0]), 1.5f);
  EXPECT_TRUE(std::isnan(static_cast<float>(hf.data<f16>()[1])));
  auto b = Literal::zeros(TensorType{DType::bf16, Shape{2}});
  EXPECT_TRUE(std::isnan(static_cast<float>(run_gather(b, idx, a).data<bf16>()[1])));
  auto d = run_gather(Literal::from_vector<double>({1, 2}, Shape{2}), idx, a);
  EXPECT_TRUE(std::isnan(d.data<double>()[1]));
}

TEST(InterpGather, WindowThatDoesNotFit) {
  // Windows of 3 from a length-5 vector: start 3 would run past the end.
  auto x = iota_f32(Shape{5});
  auto idx = Literal::from_vector<int32_t>({1, 3, 2}, Shape{3, 1});
  GatherAttrs fill{{1}, {}, {0}, {3}, GatherMode::fill};
  auto f = run_gather(x, idx, fill).to_vector<float>();
  EXPECT_EQ(part(f, 0, 3), (std::vector<float>{1, 2, 3}));
  EXPECT_TRUE(all_nan(part(f, 3, 3)));  // the whole window is filled, not just its tail
  EXPECT_EQ(part(f, 6, 3), (std::vector<float>{2, 3, 4}));
  GatherAttrs clip = fill;
  clip.mode = GatherMode::clip;
  EXPECT_EQ(run_gather(x, idx, clip).to_vector<float>(),
            (std::vector<float>{1, 2, 3, 2, 3, 4, 2, 3, 4}));
}

TEST(InterpGather, TwoDimensionalIndexVector) {
  auto x = iota_f32(Shape{3, 4});
  auto idx = Literal::from_vector<int32_t>({1, 2, 2, 3, 3, 0, 0, -1}, Shape{4, 2});
  GatherAttrs a{{}, {0, 1}, {0, 1}, {1, 1}, GatherMode::fill};
  auto out = run_gather(x, idx, a).to_vector<float>();
  EXPECT_EQ(part(out, 0, 2), (std::vector<float>{6, 11}));
  EXPECT_TRUE(all_nan(part(out, 2, 2)));
  a.mode = GatherMode::clip;
  EXPECT_EQ(run_gather(x, idx, a).to_vector<float>(), (std::vector<float>{6, 11, 8, 0}));
}

TEST(InterpGather, PermutedStartIndexMap) {
  auto x = iota_f32(Shape{3, 4});
  auto idx = Literal::from_vector<int32_t>({2, 1}, Shape{1, 2});  // (col 2, row 1)
  GatherAttrs a{{}, {0, 1}, {1, 0}, {1, 1}, GatherMode::fill};
  EXPECT_EQ(run_gather(x, idx, a).to_vector<float>(), (std::vector<float>{6}));
}

TEST(InterpGather, OffsetDimBeforeBatchDim) {
  // Gather columns of a [3,2] matrix: out[i, b] = x[i, idx[b]].
  auto x = iota_f32(Shape{3, 2});
  auto idx = Literal::from_vector<int32_t>({1, 0, 1}, Shape{3, 1});
  GatherAttrs a{{0}, {1}, {1}, {3, 1}, GatherMode::fill};
  auto out = run_gather(x, idx, a);
  EXPECT_EQ(out.shape(), (Shape{3, 3}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 0, 1, 3, 2, 3, 5, 4, 5}));
}

TEST(InterpGather, KeepsUncollapsedUnitDimAndSlices) {
  // 2x2 windows of a [3,3] matrix, nothing collapsed: out [N, 2, 2].
  auto x = iota_f32(Shape{3, 3});
  auto idx = Literal::from_vector<int32_t>({0, 1, 1, 0}, Shape{2, 2});
  GatherAttrs a{{1, 2}, {}, {0, 1}, {2, 2}, GatherMode::clip};
  auto out = run_gather(x, idx, a);
  EXPECT_EQ(out.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 2, 4, 5, 3, 4, 6, 7}));
}

TEST(InterpGather, RankZeroResult) {
  auto x = iota_f32(Shape{4});
  auto idx = Literal::from_vector<int32_t>({2}, Shape{1});
  auto out = run_gather(x, idx, GatherAttrs{{}, {0}, {0}, {1}, GatherMode::fill});
  EXPECT_EQ(out.shape(), Shape{});
  EXPECT_EQ(out.data<float>()[0], 2.0f);
}

TEST(InterpGather, EmptyIndices) {
  auto x = iota_f32(Shape{4, 3});
  auto idx = Literal::zeros(TensorType{DType::i32, Shape{0, 1}});
  auto out = run_gather(x, idx, rows(3, GatherMode::fill));
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
}

TEST(InterpGather, EmptyOperandWindow) {
  // A zero-size window gathers nothing; any index is fine.
  auto x = Literal::zeros(TensorType{DType::f32, Shape{4, 0}});
  auto idx = Literal::from_vector<int32_t>({9}, Shape{1, 1});
  auto out = run_gather(x, idx, rows(0, GatherMode::fill));
  EXPECT_EQ(out.shape(), (Shape{1, 0}));
}

TEST(InterpScatterAdd, DuplicateIndicesAccumulate) {
  auto x = Literal::zeros(TensorType{DType::f32, Shape{4, 2}});
  auto idx = Literal::from_vector<int32_t>({1, 1, 3}, Shape{3, 1});
  auto upd = Literal::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  auto out = run_scatter(x, idx, upd, row_updates(GatherMode::fill));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0, 0, 4, 6, 0, 0, 5, 6}));
  EXPECT_EQ(x.to_vector<float>(), std::vector<float>(8, 0.0f));  // operand untouched
}

TEST(InterpScatterAdd, OutOfBoundsDroppedOrClipped) {
  auto x = Literal::from_vector<float>({1, 1, 1, 1, 1, 1, 1, 1}, Shape{4, 2});
  auto idx = Literal::from_vector<int64_t>({1, 4, -1}, Shape{3, 1});
  auto upd = Literal::from_vector<float>({1, 2, 10, 20, 100, 200}, Shape{3, 2});
  EXPECT_EQ(run_scatter(x, idx, upd, row_updates(GatherMode::fill)).to_vector<float>(),
            (std::vector<float>{1, 1, 2, 3, 1, 1, 1, 1}));
  EXPECT_EQ(run_scatter(x, idx, upd, row_updates(GatherMode::clip)).to_vector<float>(),
            (std::vector<float>{101, 201, 2, 3, 1, 1, 11, 21}));
}

TEST(InterpScatterAdd, WindowThatDoesNotFitIsDroppedWhole) {
  auto x = Literal::zeros(TensorType{DType::i32, Shape{5}});
  auto idx = Literal::from_vector<int32_t>({1, 3}, Shape{2, 1});
  auto upd = Literal::from_vector<int32_t>({1, 1, 1, 1, 1, 1}, Shape{2, 3});
  ScatterAttrs a{{1}, {}, {0}, GatherMode::fill};
  EXPECT_EQ(run_scatter(x, idx, upd, a).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 1, 1, 0}));
  a.mode = GatherMode::clip;
  EXPECT_EQ(run_scatter(x, idx, upd, a).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 2, 2, 1}));
}

TEST(InterpScatterAdd, TwoDimensionalIndexVector) {
  auto x = Literal::zeros(TensorType{DType::f64, Shape{2, 3}});
  auto idx = Literal::from_vector<int32_t>({0, 2, 1, 0, 0, 2, 2, 0}, Shape{4, 2});
  auto upd = Literal::from_vector<double>({1, 2, 4, 8}, Shape{4});
  ScatterAttrs a{{}, {0, 1}, {0, 1}, GatherMode::fill};
  EXPECT_EQ(run_scatter(x, idx, upd, a).to_vector<double>(),
            (std::vector<double>{0, 0, 5, 2, 0, 0}));
}

TEST(InterpScatterAdd, ScalarUpdate) {
  auto x = Literal::from_vector<int64_t>({1, 2, 3}, Shape{3});
  auto idx = Literal::from_vector<int32_t>({2}, Shape{1});
  auto out = run_scatter(x, idx, Literal::scalar<int64_t>(10), ScatterAttrs{{}, {0}, {0}});
  EXPECT_EQ(out.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 13}));
}

TEST(InterpScatterAdd, EmptyUpdatesReturnOperand) {
  auto x = Literal::from_vector<float>({1, 2, 3, 4}, Shape{2, 2});
  auto idx = Literal::zeros(TensorType{DType::i32, Shape{0, 1}});
  auto upd = Literal::zeros(TensorType{DType::f32, Shape{0, 2}});
  auto out = run_scatter(x, idx, upd, row_updates(GatherMode::fill));
  EXPECT_TRUE(out.bit_equal(x));
}

TEST(InterpScatterAdd, HalfAndSmallIntTypes) {
  auto x = Literal::zeros(TensorType{DType::f16, Shape{2}});
  auto idx = Literal::from_vector<int32_t>({0, 0, 1}, Shape{3, 1});
  auto upd = Literal::zeros(TensorType{DType::f16, Shape{3}});
  upd.data<f16>()[0] = f16(0.5f);
  upd.data<f16>()[1] = f16(0.25f);
  upd.data<f16>()[2] = f16(-2.0f);
  ScatterAttrs a{{}, {0}, {0}, GatherMode::fill};
  auto out = run_scatter(x, idx, upd, a);
  EXPECT_EQ(static_cast<float>(out.data<f16>()[0]), 0.75f);
  EXPECT_EQ(static_cast<float>(out.data<f16>()[1]), -2.0f);

  // u8 wraps modulo 256.
  auto x8 = Literal::from_vector<uint8_t>({250, 0}, Shape{2});
  auto u8 = Literal::from_vector<uint8_t>({3, 4, 7}, Shape{3});
  EXPECT_EQ(run_scatter(x8, idx, u8, a).to_vector<int>(), (std::vector<int>{1, 7}));
}

TEST(InterpGather, MalformedNodeThrows) {
  // Hand-built function (no shape rule): the declared result does not match the attributes.
  TensorType xt{DType::f32, Shape{4, 3}}, it{DType::i32, Shape{2, 1}};
  std::vector<Node> nodes(3);
  nodes[0].op = OpCode::parameter;
  nodes[0].attrs = ParameterAttrs{0};
  nodes[0].outputs = {xt};
  nodes[1].op = OpCode::parameter;
  nodes[1].attrs = ParameterAttrs{1};
  nodes[1].outputs = {it};
  nodes[2].op = OpCode::gather;
  nodes[2].attrs = rows(3, GatherMode::fill);
  nodes[2].operands = {ValueRef{0, 0}, ValueRef{1, 0}};
  nodes[2].outputs = {TensorType{DType::f32, Shape{7, 3}}};
  Function f("bad", nodes, 2, {ValueRef{2, 0}});
  std::vector<Literal> args{Literal::zeros(xt), Literal::zeros(it)};
  EXPECT_THROW(interpret(f, args), Error);
  // Slice sizes larger than the operand.
  nodes[2].attrs = GatherAttrs{{1}, {0}, {0}, {1, 9}, GatherMode::clip};
  nodes[2].outputs = {TensorType{DType::f32, Shape{2, 9}}};
  Function g("bad2", nodes, 2, {ValueRef{2, 0}});
  EXPECT_THROW(interpret(g, args), Error);
  // start_index_map naming a dimension the operand lacks.
  nodes[2].attrs = GatherAttrs{{1}, {0}, {5}, {1, 3}, GatherMode::clip};
  nodes[2].outputs = {TensorType{DType::f32, Shape{2, 3}}};
  Function h("bad3", nodes, 2, {ValueRef{2, 0}});
  EXPECT_THROW(interpret(h, args), Error);
}
