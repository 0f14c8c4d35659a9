// Numerical gradient checks (forward and reverse mode) of cond, switch_, scan, fori_loop,
// while_loop and assume_pure as users write them: tangents on the operands or xs, on the carry,
// and on tensors the bodies capture from outside (which become extra operands or carries), with
// integer carries and xs in between the floating ones, so that a rule that drops or misplaces one
// kind of tangent gives a wrong number. The primitive-level checks are in rules_control_test.cc.
#include "lazax/autodiff/control_flow.h"
#include "lazax/autodiff/pure.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

// check_grads with every floating argument moving at once, then with each one moving alone (the
// others held as constants), so that a tangent lost on one path is not hidden by the others.
void expect_grads_each(const FlatFn& f, const Tensors& args,
                       Modes modes = Modes::fwd | Modes::rev) {
  {
    SCOPED_TRACE("all arguments at once");
    expect_grads(f, args, 2, modes);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!is_floating(args[i].dtype())) continue;
    SCOPED_TRACE("argument " + std::to_string(i) + " alone");
    FlatFn only_i = [f, args, i](const Tensors& a) {
      Tensors all = args;
      all[i] = a[0];
      return f(all);
    };
    expect_grads(only_i, {args[i]}, 2, modes);
  }
}

// cond with operands (a[1], a[2]) and a capture in each branch (a[3] in the true branch, a[4] in
// the false one); a[0] is the predicate.
Tensors two_branches(const Tensors& a) {
  return cond(
      a[0],
      [&](const Tensors& o) {
        return Tensors{o[0] * a[3] + sin(o[1]), o[0] * o[1]};
      },
      [&](const Tensors& o) {
        return Tensors{exp(o[0]) * o[1] - a[4], tanh(o[1] * a[4])};
      },
      {a[1], a[2]});
}

}  // namespace

TEST(ControlFlowGrads, CondOperandsAndCaptures) {
  for (bool pred : {true, false}) {
    SCOPED_TRACE(pred ? "true branch" : "false branch");
    expect_grads_each(two_branches, {scalar_tensor(pred, DType::boolean), rnd({2}, 1), rnd({2}, 2),
                                     rnd({2}, 3), rnd({2}, 4)});
  }
}

// An integer predicate (nonzero is true) is held fixed like any integer argument.
TEST(ControlFlowGrads, CondWithAnIntegerPredicate) {
  for (DType t : {DType::i32, DType::i64, DType::u8}) {
    for (double pred : {0.0, 2.0}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::to_string(pred));
      expect_grads(two_branches,
                   {scalar_tensor(pred, t), rnd({2}, 1), rnd({2}, 2), rnd({2}, 3), rnd({2}, 4)});
    }
  }
}

TEST(ControlFlowGrads, SwitchOperandsAndCaptures) {
  FlatFn f = [](const Tensors& a) {
    std::vector<BranchFn> branches = {
        [&](const Tensors& o) { return Tensors{o[0] * a[2]}; },
        [&](const Tensors& o) { return Tensors{sin(o[0]) + a[3] * a[3]}; },
        [&](const Tensors& o) { return Tensors{tanh(o[0] * a[2] + a[3])}; }};
    return switch_(a[0], branches, {a[1]});
  };
  for (int32_t index : {0, 1, 2}) {
    SCOPED_TRACE("branch " + std::to_string(index));
    expect_grads_each(f, {scalar_tensor(index, DType::i32), rnd({3}, 5), rnd({3}, 6), rnd({3}, 7)});
  }
}

// carries (i32 counter, f64 h), xs (i32 k, f64 x), a captured w; ys (f64, i32, f64).
// a = {counter, h, k, x, w}.
std::pair<Tensors, Tensors> mixed_scan(const Tensors& a, bool reverse) {
  const Tensor& w = a[4];
  return scan(
      [&](const Tensors& carry, const Tensors& x) {
        Tensor counter = carry[0] + x[0];
        Tensor h = tanh(carry[1] * w + x[1]) + counter.to(w.dtype()) * 0.1;
        return std::make_pair(Tensors{counter, h}, Tensors{h * x[1], counter, exp(carry[1]) * w});
      },
      {a[0], a[1]}, {a[2], a[3]}, reverse);
}

TEST(ControlFlowGrads, ScanCarryXsAndCaptures) {
  Tensors args = {scalar_tensor(1, DType::i32), rnd({2}, 8), ints<int32_t>({1, 2, 3}, {3}),
                  rnd({3, 2}, 9), rnd({2}, 10)};
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    expect_grads_each(
        [reverse](const Tensors& a) {
          auto [carry, ys] = mixed_scan(a, reverse);
          Tensors out = carry;
          out.insert(out.end(), ys.begin(), ys.end());
          return out;
        },
        args);
  }
}

// Only the stacked outputs: the final carry does not hide a wrong tangent of ys.
TEST(ControlFlowGrads, ScanYsAlone) {
  Tensors args = {scalar_tensor(0, DType::i32), rnd({2}, 11), ints<int32_t>({2, 0, 1, 1}, {4}),
                  rnd({4, 2}, 12), rnd({2}, 13)};
  expect_grads_each([](const Tensors& a) { return mixed_scan(a, false).second; }, args);
}

TEST(ControlFlowGrads, ForiLoopCarryAndCapture) {
  expect_grads_each(
      [](const Tensors& a) {
        const Tensor& w = a[1];
        return fori_loop(1, 4,
                         [&](const Tensor& i, const Tensors& c) {
                           return Tensors{sin(c[0] * w) + c[0] * i.to(w.dtype())};
                         },
                         {a[0]});
      },
      {rnd({3}, 14), rnd({3}, 15)});
}

// Forward mode only (reverse mode raises, control_flow_test.cc). The condition captures a float
// limit (no effect on the tangents; its place among the carries must be kept), the body a w.
TEST(ControlFlowGrads, WhileLoopCarryAndCapturesForwardMode) {
  FlatFn f = [](const Tensors& a) {
    const Tensor &limit = a[1], &w = a[2];
    return while_loop([&](const Tensors& c) { return Tensors{lt(c[0].to(limit.dtype()), limit)}; },
                      [&](const Tensors& c) {
                        return Tensors{c[0] + 1, c[1] * c[1] * 0.5 + sin(c[1]) * w, c[2] * w};
                      },
                      {scalar_tensor(0, DType::i32), a[0], a[3]});
  };
  expect_grads_each(
      f, {uniform({2}, 16, -0.5, 0.5), scalar_tensor(2.5, DType::f64), rnd({2}, 17), rnd({2}, 18)},
      Modes::fwd);
}

// A traced function called on an operand and a tensor it captured from outside (the traced
// program takes the capture as its last parameter): the `call` op's rules.
TEST(ControlFlowGrads, CallOperandAndCapture) {
  expect_grads_each(
      [](const Tensors& a) {
        const Tensor& w = a[1];
        FunctionPtr fn = trace([&](const Tensor& x) { return sin(x) * w + x * x; }, a[0]);
        return call(fn, {a[0], w});
      },
      {rnd({3}, 19), rnd({3}, 20)});
}

// assume_pure in reverse mode (its call carries a custom VJP; forward mode through it is not
// supported yet and raises NotDifferentiableError).
TEST(ControlFlowGrads, AssumePureOperandAndCaptureReverseMode) {
  expect_grads_each(
      [](const Tensors& a) {
        const Tensor& w = a[1];
        auto f = assume_pure([&](const Tensor& x) { return sin(x) * w + x * x; });
        return Tensors{f(a[0])};
      },
      {rnd({3}, 21), rnd({3}, 22)}, Modes::rev);
}
