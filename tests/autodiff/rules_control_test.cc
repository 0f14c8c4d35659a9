// Numerical gradient checks of the rules of the ops with sub-functions: call, cond, scan, while_,
// recorded directly as primitives with bodies built by Builder, in forward and reverse mode
// (while_ in forward mode only; its reverse mode raises, tape_test.cc). Through the user-facing
// cond / scan / while_loop, with captured tensors: control_flow_grads_test.cc.
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

// A tangent on the initial carry and one on xs (both directions of iteration).
TEST(ControlGrads, Scan) {
  ScanAttrs attrs{scan_body(), 3, 1, false};
  for (bool reverse : {false, true}) {
    attrs.reverse = reverse;
    expect_grads([attrs](const Tensors& a) { return record_op(OpCode::scan, a, attrs); },
                 {rnd({2}, 5), rnd({3, 2}, 6, DType::f64)});
  }
}

// Only xs moves: the carry's tangent is zero, so a JVP that dropped the xs tangents would give
// zero output tangents here.
TEST(ControlGrads, ScanTangentOfXsAlone) {
  ScanAttrs attrs{scan_body(), 3, 1, false};
  Tensor init = rnd({2}, 7);
  FlatFn of_xs = [attrs, init](const Tensors& a) {
    return record_op(OpCode::scan, {init.to(a[0].dtype()), a[0]}, attrs);
  };
  expect_grads(of_xs, {rnd({3, 2}, 8)});
}

// while_ (v * v + v * w until the counter reaches 3, w a loop-invariant carry) in forward mode.
TEST(ControlGrads, WhileForwardMode) {
  const TensorType counter{DType::i32, Shape{}};
  Builder c("not_done");
  ValueRef ci = c.param(counter);
  c.param(kVec);
  c.param(kVec);
  ValueRef three = c.constant(Literal::scalar<int32_t>(3));
  FunctionPtr cond = c.build({c.add(OpCode::compare, {ci, three}, CompareAttrs{CompareDir::lt})});
  Builder b("step");
  ValueRef i = b.param(counter), v = b.param(kVec), w = b.param(kVec);
  ValueRef one = b.constant(Literal::scalar<int32_t>(1));
  ValueRef next = b.add(OpCode::add, {b.add(OpCode::mul, {v, v}), b.add(OpCode::mul, {v, w})});
  FunctionPtr body = b.build({b.add(OpCode::add, {i, one}), next, w});
  WhileAttrs attrs{cond, body};
  expect_grads([attrs](const Tensors& a) { return record_op(OpCode::while_, a, attrs); },
               {scalar_tensor(0, DType::i32), uniform({2}, 9, 0.2, 0.6), rnd({2}, 10)}, 2,
               Modes::fwd);
}
