// Shape rules: for each op a valid case with the exact result types, and invalid cases that must
// throw the right error naming the op and the offending types. Control-flow ops and a random
// robustness sweep are in shape_rules_control_test.cc.
#include <gtest/gtest.h>

#include "lazax/ir/builder.h"
#include "shape_rules_test_util.h"

using namespace lazax;
using namespace lazax::test;

TEST(ShapeRules, Parameter) {
  expect_err<ValueError>(OpCode::parameter, {}, ParameterAttrs{0}, {"Builder::param"});
}

TEST(ShapeRules, Constant) {
  auto lit = Literal::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(infer(OpCode::constant, {}, ConstantAttrs{lit}), types({f32({2, 3})}));
  EXPECT_EQ(infer(OpCode::constant, {}, ConstantAttrs{Literal::scalar<int64_t>(3)}),
            types({i64({})}));
  // A literal without data behind its type.
  expect_err<ValueError>(OpCode::constant, {}, ConstantAttrs{Literal{}}, {"f32[]"});
}

TEST(ShapeRules, Iota) {
  EXPECT_EQ(infer(OpCode::iota, {}, IotaAttrs{DType::i32, Shape{4, 5}, 1}), types({i32({4, 5})}));
  EXPECT_EQ(infer(OpCode::iota, {}, IotaAttrs{DType::f16, Shape{0}, 0}),
            types({TensorType{DType::f16, Shape{0}}}));
  expect_err<ShapeError>(OpCode::iota, {}, IotaAttrs{DType::i32, Shape{4, 5}, 2},
                         {"i32[4,5]", "2"});
  expect_err<ShapeError>(OpCode::iota, {}, IotaAttrs{DType::i32, Shape{4}, -1}, {"-1"});
  expect_err<ShapeError>(OpCode::iota, {}, IotaAttrs{DType::i32, Shape{}, 0}, {"i32[]"});
  expect_err<ShapeError>(OpCode::iota, {}, IotaAttrs{DType::i32, Shape{-3}, 0}, {"[-3]"});
  expect_err<DTypeError>(OpCode::iota, {}, IotaAttrs{DType::boolean, Shape{3}, 0}, {"bool[3]"});
}

TEST(ShapeRules, BinaryNumeric) {
  for (OpCode op : {OpCode::add, OpCode::sub, OpCode::mul, OpCode::div, OpCode::max, OpCode::min,
                    OpCode::rem}) {
    EXPECT_EQ(infer(op, {f32({2, 3}), f32({2, 3})}), types({f32({2, 3})})) << op_name(op);
    EXPECT_EQ(infer(op, {i64({}), i64({})}), types({i64({})}));
    EXPECT_EQ(infer(op, {u8({7}), u8({7})}), types({u8({7})}));
    expect_err<ShapeError>(op, {f32({2, 3}), f32({3})}, NoAttrs{},
                           {"f32[2,3]", "f32[3]", "broadcast_in_dim"});
    expect_err<DTypeError>(op, {f32({2}), i32({2})}, NoAttrs{}, {"f32[2]", "i32[2]", "convert"});
  }
  for (OpCode op : {OpCode::add, OpCode::sub, OpCode::mul, OpCode::div, OpCode::rem}) {
    expect_err<DTypeError>(op, {boolean({2}), boolean({2})}, NoAttrs{}, {"bool[2]"});
  }
  EXPECT_EQ(infer(OpCode::max, {boolean({2}), boolean({2})}), types({boolean({2})}));
  EXPECT_EQ(infer(OpCode::min, {boolean({}), boolean({})}), types({boolean({})}));
}

TEST(ShapeRules, BinaryFloat) {
  EXPECT_EQ(infer(OpCode::pow, {bf16t({3}), bf16t({3})}), types({bf16t({3})}));
  expect_err<DTypeError>(OpCode::pow, {i32({3}), i32({3})}, NoAttrs{}, {"i32[3]", "floating"});
  expect_err<ShapeError>(OpCode::pow, {f32({3}), f32({4})}, NoAttrs{}, {"f32[3]", "f32[4]"});
  EXPECT_EQ(infer(OpCode::atan2, {f16t({2, 3}), f16t({2, 3})}), types({f16t({2, 3})}));
  expect_err<DTypeError>(OpCode::atan2, {i64({3}), i64({3})}, NoAttrs{}, {"[atan2]", "i64[3]"});
  expect_err<DTypeError>(OpCode::atan2, {f32({3}), f64({3})}, NoAttrs{}, {"f32[3]", "f64[3]"});
}

TEST(ShapeRules, UnaryNumeric) {
  for (OpCode op : {OpCode::neg, OpCode::abs, OpCode::relu, OpCode::sign}) {
    EXPECT_EQ(infer(op, {i32({2, 2})}), types({i32({2, 2})}));
    EXPECT_EQ(infer(op, {f64({})}), types({f64({})}));
    expect_err<DTypeError>(op, {boolean({2})}, NoAttrs{}, {"bool[2]"});
  }
}

TEST(ShapeRules, UnaryFloat) {
  for (OpCode op :
       {OpCode::exp, OpCode::log, OpCode::log1p, OpCode::expm1, OpCode::tanh, OpCode::logistic,
        OpCode::sqrt, OpCode::rsqrt, OpCode::sin, OpCode::cos, OpCode::erf, OpCode::floor,
        OpCode::round, OpCode::ceil, OpCode::erf_inv, OpCode::exp2, OpCode::tan}) {
    EXPECT_EQ(infer(op, {f16t({5})}), types({f16t({5})})) << op_name(op);
    expect_err<DTypeError>(op, {i64({5})}, NoAttrs{}, {"i64[5]"});
    expect_err<DTypeError>(op, {boolean({})}, NoAttrs{}, {"bool[]"});
  }
}

TEST(ShapeRules, IsFinite) {
  EXPECT_EQ(infer(OpCode::is_finite, {bf16t({2, 3})}), types({boolean({2, 3})}));
  EXPECT_EQ(infer(OpCode::is_finite, {f64({})}), types({boolean({})}));
  expect_err<DTypeError>(OpCode::is_finite, {i32({3})}, NoAttrs{}, {"[is_finite]", "i32[3]"});
}

TEST(ShapeRules, Clamp) {
  EXPECT_EQ(infer(OpCode::clamp, {f32({}), f32({2, 3}), f32({})}), types({f32({2, 3})}));
  EXPECT_EQ(infer(OpCode::clamp, {i32({2}), i32({2}), i32({})}), types({i32({2})}));
  EXPECT_EQ(infer(OpCode::clamp, {u8({0}), u8({0}), u8({0})}), types({u8({0})}));
  expect_err<DTypeError>(OpCode::clamp, {f64({}), f32({2}), f32({})}, NoAttrs{},
                         {"[clamp]", "min f64[]", "f32[2]", "convert"});
  expect_err<DTypeError>(OpCode::clamp, {f32({}), f32({2}), i32({})}, NoAttrs{},
                         {"max i32[]", "f32[2]"});
  expect_err<ShapeError>(OpCode::clamp, {f32({3}), f32({2}), f32({})}, NoAttrs{},
                         {"min f32[3]", "f32[2]", "broadcast_in_dim"});
  expect_err<ShapeError>(OpCode::clamp, {f32({}), f32({2, 3}), f32({3})}, NoAttrs{},
                         {"max f32[3]", "f32[2,3]"});
}

TEST(ShapeRules, Bitwise) {
  for (OpCode op : {OpCode::and_, OpCode::or_, OpCode::xor_}) {
    EXPECT_EQ(infer(op, {i32({2}), i32({2})}), types({i32({2})})) << op_name(op);
    EXPECT_EQ(infer(op, {boolean({}), boolean({})}), types({boolean({})}));
    EXPECT_EQ(infer(op, {u8({3}), u8({3})}), types({u8({3})}));
    EXPECT_EQ(infer(op, {i8t({3}), i8t({3})}), types({i8t({3})}));
    EXPECT_EQ(infer(op, {u32t({3}), u32t({3})}), types({u32t({3})}));
    expect_err<DTypeError>(op, {f32({2}), f32({2})}, NoAttrs{}, {"f32[2]", "integer or bool"});
    expect_err<DTypeError>(op, {i32({2}), i64({2})}, NoAttrs{}, {"i32[2]", "i64[2]"});
    expect_err<ShapeError>(op, {i32({2}), i32({3})}, NoAttrs{}, {"i32[2]", "i32[3]"});
  }
  EXPECT_EQ(infer(OpCode::not_, {i64({4})}), types({i64({4})}));
  EXPECT_EQ(infer(OpCode::not_, {boolean({4})}), types({boolean({4})}));
  expect_err<DTypeError>(OpCode::not_, {bf16t({4})}, NoAttrs{}, {"[not]", "bf16[4]"});
  for (OpCode op :
       {OpCode::shift_left, OpCode::shift_right_logical, OpCode::shift_right_arithmetic}) {
    EXPECT_EQ(infer(op, {i64({2, 2}), i64({2, 2})}), types({i64({2, 2})})) << op_name(op);
    EXPECT_EQ(infer(op, {u8({}), u8({})}), types({u8({})}));
    EXPECT_EQ(infer(op, {i8t({3}), i8t({3})}), types({i8t({3})}));
    EXPECT_EQ(infer(op, {u32t({3}), u32t({3})}), types({u32t({3})}));
    expect_err<DTypeError>(op, {i8t({2}), u32t({2})}, NoAttrs{}, {"i8[2]", "u32[2]"});
    expect_err<DTypeError>(op, {boolean({2}), boolean({2})}, NoAttrs{}, {"bool[2]", "integer"});
    expect_err<DTypeError>(op, {f32({2}), f32({2})}, NoAttrs{}, {"f32[2]"});
    expect_err<DTypeError>(op, {i32({2}), u8({2})}, NoAttrs{}, {"i32[2]", "u8[2]"});
  }
}

TEST(ShapeRules, Arity) {
  expect_err<ValueError>(OpCode::add, {f32({2})}, NoAttrs{}, {"2 operands"});
  expect_err<ValueError>(OpCode::add, {f32({2}), f32({2})}, ReduceAttrs{}, {"attributes"});
}

TEST(ShapeRules, Compare) {
  EXPECT_EQ(infer(OpCode::compare, {i32({4}), i32({4})}, CompareAttrs{CompareDir::lt}),
            types({boolean({4})}));
  EXPECT_EQ(infer(OpCode::compare, {boolean({}), boolean({})}, CompareAttrs{}),
            types({boolean({})}));
  expect_err<ShapeError>(OpCode::compare, {i32({4}), i32({4, 1})}, CompareAttrs{},
                         {"i32[4]", "i32[4,1]"});
  expect_err<DTypeError>(OpCode::compare, {i32({4}), f32({4})}, CompareAttrs{},
                         {"i32[4]", "f32[4]"});
}

TEST(ShapeRules, Select) {
  EXPECT_EQ(infer(OpCode::select, {boolean({2, 3}), f32({2, 3}), f32({2, 3})}),
            types({f32({2, 3})}));
  EXPECT_EQ(infer(OpCode::select, {boolean({}), i32({2, 3}), i32({2, 3})}), types({i32({2, 3})}));
  expect_err<DTypeError>(OpCode::select, {i32({2, 3}), f32({2, 3}), f32({2, 3})}, NoAttrs{},
                         {"i32[2,3]", "bool"});
  expect_err<ShapeError>(OpCode::select, {boolean({3}), f32({2, 3}), f32({2, 3})}, NoAttrs{},
                         {"bool[3]", "f32[2,3]"});
  expect_err<ShapeError>(OpCode::select, {boolean({}), f32({2, 3}), f32({3})}, NoAttrs{},
                         {"f32[2,3]", "f32[3]"});
  expect_err<DTypeError>(OpCode::select, {boolean({}), f32({3}), f64({3})}, NoAttrs{},
                         {"f32[3]", "f64[3]"});
}

TEST(ShapeRules, Convert) {
  EXPECT_EQ(infer(OpCode::convert, {f32({2, 3})}, ConvertAttrs{DType::boolean}),
            types({boolean({2, 3})}));
  EXPECT_EQ(infer(OpCode::convert, {u8({})}, ConvertAttrs{DType::bf16}), types({bf16t({})}));
}

TEST(ShapeRules, Identity) {
  EXPECT_EQ(infer(OpCode::checkpoint_name, {f32({2})}, CheckpointNameAttrs{"h"}),
            types({f32({2})}));
  EXPECT_EQ(infer(OpCode::copy_to_memory_kind, {i32({3, 1})}, MemoryKindAttrs{}),
            types({i32({3, 1})}));
  EXPECT_EQ(infer(OpCode::optimization_barrier, {f32({2}), i64({}), boolean({1})}),
            types({f32({2}), i64({}), boolean({1})}));
  EXPECT_EQ(infer(OpCode::optimization_barrier, {}), types({}));
}

TEST(ShapeRules, BroadcastInDim) {
  auto bid = [](Shape s, IntList d) { return BroadcastInDimAttrs{std::move(s), std::move(d)}; };
  EXPECT_EQ(infer(OpCode::broadcast_in_dim, {f32({3})}, bid(Shape{2, 3}, {1})),
            types({f32({2, 3})}));
  EXPECT_EQ(infer(OpCode::broadcast_in_dim, {f32({1, 3})}, bid(Shape{4, 5, 3}, {0, 2})),
            types({f32({4, 5, 3})}));
  EXPECT_EQ(infer(OpCode::broadcast_in_dim, {i32({})}, bid(Shape{2}, {})), types({i32({2})}));
  expect_err<ShapeError>(OpCode::broadcast_in_dim, {f32({3})}, bid(Shape{3, 2}, {1}),
                         {"f32[3]", "f32[3,2]"});
  expect_err<ShapeError>(OpCode::broadcast_in_dim, {f32({3})}, bid(Shape{2, 3}, {}),
                         {"f32[3]", "broadcast_dimensions"});
  expect_err<ShapeError>(OpCode::broadcast_in_dim, {f32({3})}, bid(Shape{2, 3}, {2}),
                         {"f32[3]", "out of range"});
  expect_err<ShapeError>(OpCode::broadcast_in_dim, {f32({3})}, bid(Shape{2, 3}, {-1}),
                         {"f32[3]", "-1"});
  expect_err<ShapeError>(OpCode::broadcast_in_dim, {f32({3, 3})}, bid(Shape{3, 3}, {1, 0}),
                         {"f32[3,3]", "sorted"});
  expect_err<ShapeError>(OpCode::broadcast_in_dim, {f32({3, 3})}, bid(Shape{3, 3}, {1, 1}),
                         {"f32[3,3]", "repeats"});
  expect_err<ShapeError>(OpCode::broadcast_in_dim, {f32({})}, bid(Shape{-2}, {}), {"[-2]"});
}

TEST(ShapeRules, Reshape) {
  EXPECT_EQ(infer(OpCode::reshape, {f32({2, 3})}, ReshapeAttrs{Shape{3, 1, 2}}),
            types({f32({3, 1, 2})}));
  EXPECT_EQ(infer(OpCode::reshape, {i32({1})}, ReshapeAttrs{Shape{}}), types({i32({})}));
  EXPECT_EQ(infer(OpCode::reshape, {i32({0, 5})}, ReshapeAttrs{Shape{5, 0}}), types({i32({5, 0})}));
  expect_err<ShapeError>(OpCode::reshape, {f32({2, 3})}, ReshapeAttrs{Shape{4}},
                         {"f32[2,3]", "[4]"});
  expect_err<ShapeError>(OpCode::reshape, {f32({2, 3})}, ReshapeAttrs{Shape{-1, 6}},
                         {"f32[2,3]", "negative"});
  expect_err<ShapeError>(OpCode::reshape, {f32({0})},
                         ReshapeAttrs{Shape{int64_t{1} << 40, int64_t{1} << 40, 0}}, {"overflow"});
}

TEST(ShapeRules, Transpose) {
  EXPECT_EQ(infer(OpCode::transpose, {f32({2, 3, 4})}, TransposeAttrs{{2, 0, 1}}),
            types({f32({4, 2, 3})}));
  EXPECT_EQ(infer(OpCode::transpose, {f32({})}, TransposeAttrs{{}}), types({f32({})}));
  expect_err<ShapeError>(OpCode::transpose, {f32({2, 3})}, TransposeAttrs{{0}}, {"f32[2,3]"});
  expect_err<ShapeError>(OpCode::transpose, {f32({2, 3})}, TransposeAttrs{{0, 0}},
                         {"f32[2,3]", "repeats"});
  expect_err<ShapeError>(OpCode::transpose, {f32({2, 3})}, TransposeAttrs{{0, 2}},
                         {"f32[2,3]", "out of range"});
}

TEST(ShapeRules, Slice) {
  EXPECT_EQ(infer(OpCode::slice, {f32({10, 4})}, SliceAttrs{{1, 0}, {8, 4}, {3, 1}}),
            types({f32({3, 4})}));
  EXPECT_EQ(infer(OpCode::slice, {f32({10, 4})}, SliceAttrs{{2, 4}, {5, 4}, {}}),
            types({f32({3, 0})}));
  expect_err<ShapeError>(OpCode::slice, {f32({10})}, SliceAttrs{{0}, {11}, {}}, {"f32[10]", "11"});
  expect_err<ShapeError>(OpCode::slice, {f32({10})}, SliceAttrs{{5}, {4}, {}}, {"f32[10]"});
  expect_err<ShapeError>(OpCode::slice, {f32({10})}, SliceAttrs{{-1}, {4}, {}}, {"f32[10]", "-1"});
  expect_err<ShapeError>(OpCode::slice, {f32({10})}, SliceAttrs{{0}, {4}, {0}},
                         {"f32[10]", "strides"});
  expect_err<ShapeError>(OpCode::slice, {f32({10})}, SliceAttrs{{0}, {4}, {1, 1}},
                         {"f32[10]", "strides"});
  expect_err<ShapeError>(OpCode::slice, {f32({10, 2})}, SliceAttrs{{0}, {4}, {}},
                         {"f32[10,2]", "start_indices"});
}

TEST(ShapeRules, DynamicSlice) {
  EXPECT_EQ(
      infer(OpCode::dynamic_slice, {f32({5, 6}), i32({}), i64({})}, DynamicSliceAttrs{{2, 6}}),
      types({f32({2, 6})}));
  expect_err<ShapeError>(OpCode::dynamic_slice, {f32({5, 6}), i32({})}, DynamicSliceAttrs{{2, 6}},
                         {"f32[5,6]", "i32[]"});
  expect_err<DTypeError>(OpCode::dynamic_slice, {f32({5, 6}), i32({}), f32({})},
                         DynamicSliceAttrs{{2, 6}}, {"f32[5,6]", "f32[]"});
  expect_err<DTypeError>(OpCode::dynamic_slice, {f32({5}), i32({1})}, DynamicSliceAttrs{{2}},
                         {"f32[5]", "i32[1]"});
  expect_err<ShapeError>(OpCode::dynamic_slice, {f32({5}), i32({})}, DynamicSliceAttrs{{6}},
                         {"f32[5]", "[6]"});
  expect_err<ShapeError>(OpCode::dynamic_slice, {f32({5}), i32({})}, DynamicSliceAttrs{{-1}},
                         {"f32[5]", "[-1]"});
  expect_err<ShapeError>(OpCode::dynamic_slice, {f32({5}), i32({})}, DynamicSliceAttrs{{1, 1}},
                         {"f32[5]", "slice_sizes"});
  expect_err<ShapeError>(OpCode::dynamic_slice, {}, DynamicSliceAttrs{}, {"none"});
}

TEST(ShapeRules, DynamicUpdateSlice) {
  EXPECT_EQ(infer(OpCode::dynamic_update_slice, {f32({5, 6}), f32({2, 6}), i32({}), i32({})}),
            types({f32({5, 6})}));
  expect_err<ShapeError>(OpCode::dynamic_update_slice, {f32({5, 6}), f32({6, 6}), i32({}), i32({})},
                         NoAttrs{}, {"f32[5,6]", "f32[6,6]"});
  expect_err<ShapeError>(OpCode::dynamic_update_slice, {f32({5, 6}), f32({6}), i32({}), i32({})},
                         NoAttrs{}, {"f32[5,6]", "f32[6]", "rank"});
  expect_err<DTypeError>(OpCode::dynamic_update_slice, {f32({5}), i32({2}), i32({})}, NoAttrs{},
                         {"f32[5]", "i32[2]"});
  expect_err<ShapeError>(OpCode::dynamic_update_slice, {f32({5}), f32({2})}, NoAttrs{},
                         {"f32[5]", "start index"});
  expect_err<ShapeError>(OpCode::dynamic_update_slice, {f32({5})}, NoAttrs{}, {"f32[5]"});
}

TEST(ShapeRules, Concatenate) {
  EXPECT_EQ(
      infer(OpCode::concatenate, {f32({2, 3}), f32({2, 5}), f32({2, 0})}, ConcatenateAttrs{1}),
      types({f32({2, 8})}));
  EXPECT_EQ(infer(OpCode::concatenate, {i32({4})}, ConcatenateAttrs{0}), types({i32({4})}));
  expect_err<ShapeError>(OpCode::concatenate, {f32({2, 3}), f32({3, 3})}, ConcatenateAttrs{1},
                         {"f32[2,3]", "f32[3,3]"});
  expect_err<ShapeError>(OpCode::concatenate, {f32({2, 3}), f32({2})}, ConcatenateAttrs{0},
                         {"f32[2,3]", "f32[2]"});
  expect_err<DTypeError>(OpCode::concatenate, {f32({2}), i32({2})}, ConcatenateAttrs{0},
                         {"f32[2]", "i32[2]"});
  expect_err<ShapeError>(OpCode::concatenate, {f32({2}), f32({2})}, ConcatenateAttrs{1},
                         {"f32[2]", "dimension 1"});
  expect_err<ShapeError>(OpCode::concatenate, {f32({}), f32({})}, ConcatenateAttrs{0}, {"f32[]"});
  expect_err<ShapeError>(OpCode::concatenate, {}, ConcatenateAttrs{0}, {"at least one"});
}

TEST(ShapeRules, Pad) {
  EXPECT_EQ(infer(OpCode::pad, {f32({3, 4}), f32({})}, PadAttrs{{1, -1}, {2, 0}, {1, 0}}),
            types({f32({8, 3})}));
  // Interior padding of an empty dimension adds nothing.
  EXPECT_EQ(infer(OpCode::pad, {f32({0}), f32({})}, PadAttrs{{1}, {1}, {5}}), types({f32({2})}));
  expect_err<ShapeError>(OpCode::pad, {f32({3}), f32({})}, PadAttrs{{-2}, {-2}, {0}},
                         {"f32[3]", "negative"});
  expect_err<ShapeError>(OpCode::pad, {f32({3}), f32({})}, PadAttrs{{0}, {0}, {-1}},
                         {"f32[3]", "interior_padding"});
  expect_err<ShapeError>(OpCode::pad, {f32({3}), f32({1})}, PadAttrs{{0}, {0}, {0}},
                         {"f32[3]", "f32[1]", "scalar"});
  expect_err<DTypeError>(OpCode::pad, {f32({3}), i32({})}, PadAttrs{{0}, {0}, {0}},
                         {"f32[3]", "i32[]"});
  expect_err<ShapeError>(OpCode::pad, {f32({3, 3}), f32({})}, PadAttrs{{0}, {0, 0}, {0, 0}},
                         {"f32[3,3]", "edge_padding_low"});
  expect_err<ShapeError>(OpCode::pad, {f32({3}), f32({})}, PadAttrs{{INT64_MAX}, {INT64_MAX}, {0}},
                         {"overflow"});
}

TEST(ShapeRules, Reduce) {
  for (OpCode op :
       {OpCode::reduce_sum, OpCode::reduce_max, OpCode::reduce_min, OpCode::reduce_prod}) {
    EXPECT_EQ(infer(op, {f32({2, 3, 4})}, ReduceAttrs{{2, 0}}), types({f32({3})}));
    EXPECT_EQ(infer(op, {i32({2, 3})}, ReduceAttrs{{}}), types({i32({2, 3})}));
    EXPECT_EQ(infer(op, {i32({2, 3})}, ReduceAttrs{{0, 1}}), types({i32({})}));
    expect_err<ShapeError>(op, {f32({2, 3})}, ReduceAttrs{{2}}, {"f32[2,3]", "out of range"});
    expect_err<ShapeError>(op, {f32({2, 3})}, ReduceAttrs{{-1}}, {"f32[2,3]", "-1"});
    expect_err<ShapeError>(op, {f32({2, 3})}, ReduceAttrs{{1, 1}}, {"f32[2,3]", "repeats"});
  }
  EXPECT_EQ(infer(OpCode::reduce_max, {boolean({4})}, ReduceAttrs{{0}}), types({boolean({})}));
  expect_err<DTypeError>(OpCode::reduce_sum, {boolean({4})}, ReduceAttrs{{0}}, {"bool[4]"});
  expect_err<DTypeError>(OpCode::reduce_prod, {boolean({4})}, ReduceAttrs{{0}}, {"bool[4]"});
}

TEST(ShapeRules, Argmax) {
  EXPECT_EQ(infer(OpCode::argmax, {f32({2, 3, 4})}, ArgmaxAttrs{1, DType::i64}),
            types({i64({2, 4})}));
  EXPECT_EQ(infer(OpCode::argmax, {f32({5})}, ArgmaxAttrs{0, DType::i32}), types({i32({})}));
  expect_err<ShapeError>(OpCode::argmax, {f32({2, 3})}, ArgmaxAttrs{2, DType::i32},
                         {"f32[2,3]", "axis 2"});
  expect_err<ShapeError>(OpCode::argmax, {f32({})}, ArgmaxAttrs{0, DType::i32}, {"f32[]"});
  expect_err<DTypeError>(OpCode::argmax, {f32({3})}, ArgmaxAttrs{0, DType::f32},
                         {"f32[3]", "index_dtype"});
  expect_err<ShapeError>(OpCode::argmax, {f32({2, 0})}, ArgmaxAttrs{1, DType::i32},
                         {"f32[2,0]", "empty"});
}

TEST(ShapeRules, Cumsum) {
  EXPECT_EQ(infer(OpCode::cumsum, {f32({2, 3})}, CumsumAttrs{1, true}), types({f32({2, 3})}));
  expect_err<ShapeError>(OpCode::cumsum, {f32({2, 3})}, CumsumAttrs{-1, false}, {"f32[2,3]", "-1"});
  expect_err<ShapeError>(OpCode::cumsum, {f32({})}, CumsumAttrs{0, false}, {"f32[]"});
  expect_err<DTypeError>(OpCode::cumsum, {boolean({3})}, CumsumAttrs{0, false}, {"bool[3]"});
}

TEST(ShapeRules, CumulativeOps) {
  EXPECT_EQ(infer(OpCode::cumprod, {i32({2, 3})}, CumsumAttrs{0, false}), types({i32({2, 3})}));
  expect_err<DTypeError>(OpCode::cumprod, {boolean({3})}, CumsumAttrs{0, false}, {"bool[3]"});
  for (OpCode op : {OpCode::cummax, OpCode::cummin}) {
    EXPECT_EQ(infer(op, {f32({2, 3})}, CumsumAttrs{1, true}), types({f32({2, 3}), i64({2, 3})}));
    EXPECT_EQ(infer(op, {boolean({0})}, CumsumAttrs{0, false}), types({boolean({0}), i64({0})}));
    expect_err<ShapeError>(op, {f32({2, 3})}, CumsumAttrs{2, false}, {"f32[2,3]", "axis 2"});
    expect_err<ShapeError>(op, {f32({})}, CumsumAttrs{0, false}, {"f32[]"});
  }
}

TEST(ShapeRules, Argmin) {
  EXPECT_EQ(infer(OpCode::argmin, {u8({2, 3, 4})}, ArgmaxAttrs{2, DType::i32}),
            types({i32({2, 3})}));
  expect_err<ShapeError>(OpCode::argmin, {f32({2, 0})}, ArgmaxAttrs{1, DType::i32},
                         {"[argmin]", "f32[2,0]", "argmin needs"});
  expect_err<DTypeError>(OpCode::argmin, {f32({3})}, ArgmaxAttrs{0, DType::u8},
                         {"[argmin]", "f32[3]", "index_dtype"});
}

TEST(ShapeRules, Rev) {
  EXPECT_EQ(infer(OpCode::rev, {f16t({2, 3, 4})}, RevAttrs{{2, 0}}), types({f16t({2, 3, 4})}));
  EXPECT_EQ(infer(OpCode::rev, {boolean({})}, RevAttrs{{}}), types({boolean({})}));
  expect_err<ShapeError>(OpCode::rev, {f32({2, 3})}, RevAttrs{{2}}, {"f32[2,3]", "out of range"});
  expect_err<ShapeError>(OpCode::rev, {f32({2, 3})}, RevAttrs{{1, 1}}, {"f32[2,3]", "repeats"});
}

TEST(ShapeRules, Sort) {
  EXPECT_EQ(infer(OpCode::sort, {bf16t({2, 3})}, SortAttrs{0, true}),
            types({bf16t({2, 3}), i64({2, 3})}));
  EXPECT_EQ(infer(OpCode::sort, {u8({0})}, SortAttrs{0, false}), types({u8({0}), i64({0})}));
  expect_err<ShapeError>(OpCode::sort, {f32({2, 3})}, SortAttrs{-1, false}, {"f32[2,3]", "-1"});
  expect_err<ShapeError>(OpCode::sort, {f32({})}, SortAttrs{0, false}, {"[sort]", "f32[]"});
}

TEST(ShapeRules, ReduceAndOr) {
  for (OpCode op : {OpCode::reduce_and, OpCode::reduce_or}) {
    EXPECT_EQ(infer(op, {boolean({2, 3, 4})}, ReduceAttrs{{2, 0}}), types({boolean({3})}));
    EXPECT_EQ(infer(op, {boolean({2, 0})}, ReduceAttrs{{}}), types({boolean({2, 0})}));
    expect_err<DTypeError>(op, {f32({2, 3})}, ReduceAttrs{{0}}, {"f32[2,3]", "bool"});
    expect_err<ShapeError>(op, {boolean({2, 3})}, ReduceAttrs{{2}}, {"bool[2,3]", "out of range"});
    expect_err<ShapeError>(op, {boolean({2, 3})}, ReduceAttrs{{0, 0}}, {"bool[2,3]", "repeats"});
  }
}

TEST(ShapeRules, DotGeneral) {
  auto dg = [](IntList lb, IntList rb, IntList lc, IntList rc) {
    return DotGeneralAttrs{std::move(lb), std::move(rb), std::move(lc), std::move(rc)};
  };
  // Matmul.
  EXPECT_EQ(infer(OpCode::dot_general, {f32({2, 3}), f32({3, 4})}, dg({}, {}, {1}, {0})),
            types({f32({2, 4})}));
  // Batched, with the batch and contracting dims in unusual places: batch, lhs free, rhs free.
  EXPECT_EQ(infer(OpCode::dot_general, {f32({3, 7, 5, 2}), f32({5, 2, 9})}, dg({3}, {1}, {2}, {0})),
            types({f32({2, 3, 7, 9})}));
  // Outer product.
  EXPECT_EQ(infer(OpCode::dot_general, {i32({2}), i32({3})}, dg({}, {}, {}, {})),
            types({i32({2, 3})}));
  expect_err<ShapeError>(OpCode::dot_general, {f32({2, 3}), f32({4, 5})}, dg({}, {}, {1}, {0}),
                         {"f32[2,3]", "f32[4,5]", "contracting"});
  expect_err<ShapeError>(OpCode::dot_general, {f32({2, 3}), f32({4, 3})}, dg({0}, {0}, {1}, {1}),
                         {"f32[2,3]", "f32[4,3]", "batch"});
  expect_err<DTypeError>(OpCode::dot_general, {f32({2, 3}), f64({3, 4})}, dg({}, {}, {1}, {0}),
                         {"f32[2,3]", "f64[3,4]"});
  expect_err<ShapeError>(OpCode::dot_general, {f32({2, 3}), f32({3, 4})}, dg({}, {}, {1}, {}),
                         {"f32[2,3]", "rhs_contracting"});
  expect_err<ShapeError>(OpCode::dot_general, {f32({2, 3}), f32({3, 4})}, dg({}, {}, {2}, {0}),
                         {"f32[2,3]", "out of range"});
  expect_err<ShapeError>(OpCode::dot_general, {f32({3, 3}), f32({3, 3})}, dg({1}, {0}, {1}, {1}),
                         {"f32[3,3]", "repeats"});
  expect_err<DTypeError>(OpCode::dot_general, {boolean({3}), boolean({3})}, dg({}, {}, {0}, {0}),
                         {"bool[3]"});
}

TEST(ShapeRules, Gather) {
  // Row gather (jnp.take(x, idx, axis=0)): x f32[5,4], idx i32[3,1] -> f32[3,4].
  GatherAttrs rows{{1}, {0}, {0}, {1, 4}, GatherMode::fill};
  EXPECT_EQ(infer(OpCode::gather, {f32({5, 4}), i32({3, 1})}, rows), types({f32({3, 4})}));
  // Offset dims placed first, batch dims after; no collapsing.
  GatherAttrs windows{{0, 1}, {}, {0, 1}, {2, 3}, GatherMode::clip};
  EXPECT_EQ(infer(OpCode::gather, {f32({5, 4}), i64({7, 6, 2})}, windows),
            types({f32({2, 3, 7, 6})}));
  // Point gather: both dims collapsed.
  GatherAttrs points{{}, {0, 1}, {1, 0}, {1, 1}, GatherMode::fill};
  EXPECT_EQ(infer(OpCode::gather, {f32({5, 4}), i32({8, 2})}, points), types({f32({8})}));
  expect_err<DTypeError>(OpCode::gather, {f32({5, 4}), f32({3, 1})}, rows,
                         {"f32[5,4]", "f32[3,1]"});
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({3, 2})}, rows,
                         {"i32[3,2]", "start_index_map"});
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({})}, rows, {"i32[]"});
  GatherAttrs bad = rows;
  bad.slice_sizes = {2, 4};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({3, 1})}, bad,
                         {"f32[5,4]", "slice size 2"});
  bad = rows;
  bad.slice_sizes = {1, 5};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({3, 1})}, bad, {"f32[5,4]", "[1,5]"});
  bad = rows;
  bad.slice_sizes = {1};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({3, 1})}, bad, {"slice_sizes"});
  bad = rows;
  bad.offset_dims = {};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({3, 1})}, bad,
                         {"f32[5,4]", "offset_dims"});
  bad = rows;
  bad.offset_dims = {2};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({3, 1})}, bad, {"offset_dims", "range"});
  bad = points;
  bad.collapsed_slice_dims = {1, 0};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({8, 2})}, bad, {"sorted"});
  bad = points;
  bad.start_index_map = {1, 1};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({8, 2})}, bad, {"repeats"});
  bad = points;
  bad.start_index_map = {0, 2};
  expect_err<ShapeError>(OpCode::gather, {f32({5, 4}), i32({8, 2})}, bad, {"out of range"});
}

TEST(ShapeRules, ScatterAdd) {
  // Row scatter: x f32[5,4] += updates f32[3,4] at rows idx i32[3,1].
  ScatterAttrs rows{{1}, {0}, {0}, GatherMode::fill};
  EXPECT_EQ(infer(OpCode::scatter_add, {f32({5, 4}), i32({3, 1}), f32({3, 4})}, rows),
            types({f32({5, 4})}));
  // Window smaller than the operand; the window dim sits between the scatter dims.
  EXPECT_EQ(infer(OpCode::scatter_add, {i32({5, 4}), i64({2, 3, 1}), i32({2, 2, 3})},
                  ScatterAttrs{{1}, {0}, {0}, GatherMode::clip}),
            types({i32({5, 4})}));
  expect_err<ShapeError>(OpCode::scatter_add, {f32({5, 4}), i32({3, 1}), f32({2, 4})}, rows,
                         {"f32[2,4]", "i32[3,1]"});
  expect_err<ShapeError>(OpCode::scatter_add, {f32({5, 4}), i32({3, 1}), f32({3, 5})}, rows,
                         {"f32[3,5]", "f32[5,4]", "larger"});
  expect_err<ShapeError>(OpCode::scatter_add, {f32({5, 4}), i32({3, 1}), f32({3})}, rows,
                         {"f32[3]", "rank"});
  expect_err<DTypeError>(OpCode::scatter_add, {f32({5, 4}), i32({3, 1}), f64({3, 4})}, rows,
                         {"f64[3,4]", "f32[5,4]"});
  expect_err<DTypeError>(OpCode::scatter_add, {f32({5, 4}), f32({3, 1}), f32({3, 4})}, rows,
                         {"f32[3,1]"});
  expect_err<DTypeError>(OpCode::scatter_add, {boolean({5}), i32({3, 1}), boolean({3})},
                         ScatterAttrs{{}, {0}, {0}, GatherMode::fill}, {"bool[5]"});
  expect_err<ShapeError>(OpCode::scatter_add, {f32({5, 4}), i32({3, 2}), f32({3, 4})}, rows,
                         {"i32[3,2]", "scatter_dims_to_operand_dims"});
  expect_err<ShapeError>(OpCode::scatter_add, {f32({5, 4}), i32({3, 1}), f32({3, 4})},
                         ScatterAttrs{{1}, {}, {0}, GatherMode::fill},
                         {"f32[5,4]", "inserted_window_dims"});
  expect_err<ShapeError>(OpCode::scatter_add, {f32({5, 4}), i32({3, 1}), f32({3, 4})},
                         ScatterAttrs{{2}, {0}, {0}, GatherMode::fill},
                         {"update_window_dims", "range"});
  expect_err<ShapeError>(OpCode::scatter_add, {f32({5, 4}), i32({}), f32({3, 4})}, rows, {"i32[]"});
}

TEST(ShapeRules, RandomBits) {
  TensorType key = i64({2});
  EXPECT_EQ(infer(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{3, 4}, DType::u8}),
            types({u8({3, 4}), key}));
  EXPECT_EQ(infer(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{}, DType::i64}),
            types({i64({}), key}));
  EXPECT_EQ(infer(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{2}, DType::i8}),
            types({i8t({2}), key}));
  EXPECT_EQ(infer(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{2}, DType::u32}),
            types({u32t({2}), key}));
  expect_err<ShapeError>(OpCode::random_bits, {i64({3})}, RandomBitsAttrs{}, {"i64[3]", "i64[2]"});
  expect_err<DTypeError>(OpCode::random_bits, {i32({2})}, RandomBitsAttrs{}, {"i32[2]", "i64[2]"});
  expect_err<DTypeError>(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{3}, DType::f32},
                         {"f32"});
  expect_err<ShapeError>(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{-3}, DType::i32},
                         {"[-3]"});
}

TEST(ShapeRules, BuilderRunsRules) {
  Builder b("f");
  auto x = b.param(f32({2, 3}));
  auto y = b.add(OpCode::reduce_sum, {x}, ReduceAttrs{{1}});
  EXPECT_EQ(b.type(y), f32({2}));
  EXPECT_THROW(b.add(OpCode::add, {x, y}), ShapeError);
  EXPECT_EQ(b.num_nodes(), 2u);  // the failed add left the builder as it was
}
