// Numerical gradient checks of the rules of the ops with sub-functions: call, cond, scan (and
// while_ in tape_test.cc), recorded directly as primitives with bodies built by Builder.
#include "lazax/ir/builder.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

const TensorType kVec{DType::f64, Shape{2}};

// (x, y) -> (sin(x) * y + exp(y), x * y)
FunctionPtr two_outputs() {
  Builder b("callee");
  ValueRef x = b.param(kVec), y = b.param(kVec);
  ValueRef s = b.add(OpCode::mul, {b.add(OpCode::sin, {x}), y});
  return b.build({b.add(OpCode::add, {s, b.add(OpCode::exp, {y})}), b.add(OpCode::mul, {x, y})});
}

FunctionPtr branch(int which) {
  Builder b("branch" + std::to_string(which));
  ValueRef x = b.param(kVec), y = b.param(kVec);
  if (which == 0) return b.build({b.add(OpCode::mul, {x, y})});
  if (which == 1) return b.build({b.add(OpCode::add, {b.add(OpCode::sin, {x}), y})});
  return b.build({b.add(OpCode::tanh, {b.add(OpCode::mul, {x, x})})});
}

// body(c, x) -> (c * x + sin(c), exp(c) * x): a carry and one stacked output.
FunctionPtr scan_body() {
  Builder b("body");
  ValueRef c = b.param(kVec), x = b.param(kVec);
  ValueRef next = b.add(OpCode::add, {b.add(OpCode::mul, {c, x}), b.add(OpCode::sin, {c})});
  return b.build({next, b.add(OpCode::mul, {b.add(OpCode::exp, {c}), x})});
}

}  // namespace

TEST(ControlGrads, Call) {
  FunctionPtr fn = two_outputs();
  expect_grads([fn](const Tensors& a) { return record_op(OpCode::call, a, CallAttrs{fn}); },
               {rnd({2}, 1), rnd({2}, 2)});
}

TEST(ControlGrads, Cond) {
  CondAttrs attrs{{branch(0), branch(1), branch(2)}};
  for (int32_t k : {0, 1, 2}) {
    Tensor index = scalar_tensor(k, DType::i32);
    expect_grads([attrs](const Tensors& a) { return record_op(OpCode::cond, a, attrs); },
                 {index, rnd({2}, 3), rnd({2}, 4)});
  }
}

// (Reverse mode only: scan's JVP rule is not written yet.)
TEST(ControlGrads, ScanReverseMode) {
  ScanAttrs attrs{scan_body(), 3, 1, false};
  for (bool reverse : {false, true}) {
    attrs.reverse = reverse;
    expect_grads([attrs](const Tensors& a) { return record_op(OpCode::scan, a, attrs); },
                 {rnd({2}, 5), rnd({3, 2}, 6, DType::f64)}, 2, Modes::rev);
  }
}
