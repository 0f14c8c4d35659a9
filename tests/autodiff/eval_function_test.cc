// eval_function: a parsed program evaluated on tensors is lazy, on the tape and differentiable.
#include "lazax/autodiff/eval_function.h"

#include "lazax/ir/printer.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {
const char* kProgram =
    "func @main(%x: f64[2,3], %w: f64[3,4]) -> (f64[], f64[2,4]) {\n"
    "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], lhs_contracting=[1], "
    "rhs_contracting=[0]} : f64[2,4]\n"
    "  %1 = tanh(%0) : f64[2,4]\n"
    "  %2 = reduce_sum(%1) {axes=[0, 1]} : f64[]\n"
    "  return %2, %1\n"
    "}";
}  // namespace

TEST(EvalFunction, ProgramsFromTextAreDifferentiable) {
  FunctionPtr f = parse_program(kProgram);
  Tensor x = rnd({2, 3}, 1), w = rnd({3, 4}, 2);
  Tensors out = autodiff::eval_function(*f, {x, w});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].is_pending());
  EXPECT_NEAR(out[0].item(), tanh(matmul(x, w)).sum().item(), 1e-12);
  Tensor g = grad([&](const Tensor& v) { return autodiff::eval_function(*f, {x, v})[0]; })(w);
  Tensor want = grad([&](const Tensor& v) { return tanh(matmul(x, v)).sum(); })(w);
  std::vector<double> a = values(g), b = values(want);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12);
  expect_grads([f](const Tensors& a) { return autodiff::eval_function(*f, a); }, {x, w});
}

TEST(EvalFunction, ArgumentsMustMatchTheParameters) {
  FunctionPtr f = parse_program(kProgram);
  EXPECT_THROW(autodiff::eval_function(*f, {rnd({2, 3}, 3)}), ValueError);
  EXPECT_THROW(autodiff::eval_function(*f, {rnd({2, 3}, 3), rnd({3, 5}, 4)}), ShapeError);
  EXPECT_THROW(autodiff::eval_function(*f, {rnd({2, 3}, 3, DType::f32), rnd({3, 4}, 4)}),
               DTypeError);
}
