// Recording a `call` node (src/trace/graph.cc make_node): operands that fit the callee's
// parameters give the callee's result types, read where the callee keeps them; operands that do
// not fit (count, dtype or shape) throw the shape rule's error, naming the callee and both type
// lists, and record nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/pure.h"
#include "lazax/core/error.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/builder.h"

using namespace lazax;

namespace {

// (a: f32[2,3], b: f32[3]) -> (a + b broadcast, sum of a as f32[], b as i32[3])
FunctionPtr callee() {
  Builder b("callee");
  ValueRef a = b.param(TensorType{DType::f32, Shape{2, 3}});
  ValueRef v = b.param(TensorType{DType::f32, Shape{3}});
  ValueRef vb = b.add(OpCode::broadcast_in_dim, {v}, BroadcastInDimAttrs{Shape{2, 3}, {1}});
  ValueRef s = b.add(OpCode::add, {a, vb});
  ValueRef r = b.add(OpCode::reduce_sum, {a}, ReduceAttrs{{0, 1}});
  ValueRef c = b.add(OpCode::convert, {v}, ConvertAttrs{DType::i32});
  return b.build({s, r, c});
}

int64_t ops_recorded() { return metrics::counter("OpsRecorded").get(); }

std::string error_of(const std::vector<Tensor>& args) {
  FunctionPtr f = callee();
  int64_t before = ops_recorded();
  try {
    call(f, args);
  } catch (const ShapeError& e) {
    EXPECT_EQ(ops_recorded(), before) << "a failed call recorded a node";
    return e.what();
  } catch (const Error& e) {
    ADD_FAILURE() << "not a ShapeError: " << e.what();
  }
  return "";
}

}  // namespace

TEST(CallRecord, FittingOperandsGiveTheCalleesResultTypes) {
  Tensor a = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor v = from_vector<float>({10, 20, 30}, {3});
  std::vector<Tensor> out = call(callee(), {a, v});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{}));
  EXPECT_EQ(out[2].dtype(), DType::i32);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{21}));
  EXPECT_EQ(out[2].to_vector<int32_t>(), (std::vector<int32_t>{10, 20, 30}));
}

TEST(CallRecord, AWrongShapeNamesTheCalleeAndBothTypeLists) {
  std::string msg = error_of(
      {from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2}), from_vector<float>({1, 2, 3}, {3})});
  EXPECT_NE(msg.find("[call]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("@callee"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32[2,3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32[3,2]"), std::string::npos) << msg;
}

TEST(CallRecord, AWrongDtypeOrCountIsAnError) {
  Tensor a = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  std::string dtype = error_of({a, from_vector<int32_t>({1, 2, 3}, {3})});
  EXPECT_NE(dtype.find("i32[3]"), std::string::npos) << dtype;
  std::string count = error_of({a});
  EXPECT_NE(count.find("@callee"), std::string::npos) << count;
  std::string extra = error_of({a, from_vector<float>({1, 2, 3}, {3}), a});
  EXPECT_NE(extra.find("@callee"), std::string::npos) << extra;
}
