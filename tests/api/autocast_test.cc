// Autocast(bf16) (lazax/api/autocast.h): matmul of f32 operands multiplies in bf16 and returns
// bf16; cross_entropy runs in f32; other ops stay as written, with promotion; gradients of f32
// parameters come back f32; the scope restores the previous setting.
#include "lazax/api/autocast.h"

#include "api_test_util.h"
#include "lazax/api/ops_nn.h"
#include "lazax/api/ops_reduce.h"
#include "lazax/api/ops_shape.h"

using namespace lazax;
using namespace lazax::testing;

namespace {

// Values with more mantissa bits than bf16 keeps, so bf16 and f32 products differ.
Tensor ramp(int64_t n, int64_t m, double scale) {
  std::vector<float> v(static_cast<size_t>(n * m));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(scale * std::sin(0.37 * static_cast<double>(i) + 0.1));
  return from_vector<float>(v, {n, m});
}

TEST(Autocast, MatmulRunsInBf16AndStaysBf16) {
  Tensor a = ramp(6, 40, 1.3), b = ramp(40, 5, 0.7);
  const std::vector<double> f32 = matmul(a, b).to_vector<double>();
  std::vector<double> ac;
  {
    Autocast scope(DType::bf16);
    EXPECT_EQ(autocast_dtype(), DType::bf16);
    ac = values(matmul(a, b), DType::bf16, {6, 5});
  }
  EXPECT_EQ(autocast_dtype(), DType::f32);
  // Exactly the bf16 product of the converted operands: the same program written by hand.
  EXPECT_EQ(ac, matmul(a.to(DType::bf16), b.to(DType::bf16)).to_vector<double>());
  expect_near(ac, f32, 3e-2);
  bool differs = false;
  for (size_t i = 0; i < f32.size(); ++i) differs = differs || ac[i] != f32[i];
  EXPECT_TRUE(differs) << "autocast's matmul should not be the f32 one";
}

TEST(Autocast, OneF32AndOneBf16OperandMultiplyInBf16) {
  Tensor a = ramp(6, 40, 1.3), b = ramp(40, 5, 0.7).to(DType::bf16);
  // Outside a scope, as PyTorch: no promotion between matmul's operands.
  expect_error<DTypeError>([&] { (void)matmul(a, b); }, {"[matmul]", "same dtype", "bf16"});
  Autocast scope(DType::bf16);
  EXPECT_EQ(values(matmul(a, b), DType::bf16, {6, 5}),
            matmul(a.to(DType::bf16), b).to_vector<double>());
  EXPECT_EQ(values(matmul(b.t(), a.t()), DType::bf16, {5, 6}),
            matmul(b.t(), a.t().to(DType::bf16)).to_vector<double>());
  // f64 is not an autocast dtype: it runs as written, and mixing it with bf16 stays an error.
  EXPECT_EQ(matmul(a.to(DType::f64), a.t().to(DType::f64)).dtype(), DType::f64);
  expect_error<DTypeError>([&] { (void)matmul(a.to(DType::f64), b); }, {"[matmul]", "f64"});
}

TEST(Autocast, OtherOpsRunAsWrittenWithPromotion) {
  Tensor a = ramp(4, 8, 1.0), b = ramp(8, 3, 1.0);
  Autocast scope(DType::bf16);
  Tensor y = matmul(a, b);
  // As PyTorch's CPU autocast: softmax, exp and log of a bf16 product stay bf16 ...
  EXPECT_EQ(softmax(y, -1).dtype(), DType::bf16);
  EXPECT_EQ((y * 2.0).exp().log().sum().dtype(), DType::bf16);
  // ... and an f32 operand promotes (a residual stream that starts f32 stays f32).
  EXPECT_EQ((ramp(4, 3, 1.0) + y).dtype(), DType::f32);
  // bf16 operands are left as they are.
  EXPECT_EQ(matmul(a.to(DType::bf16), b.to(DType::bf16)).dtype(), DType::bf16);
}

TEST(Autocast, CrossEntropyRunsInF32) {
  Tensor logits = ramp(5, 7, 2.0).to(DType::bf16);
  Tensor targets = from_vector<int64_t>({0, 6, 3, 3, 1}, {5});
  const double want = cross_entropy(logits.to(DType::f32), targets).item();
  // Outside a scope a bf16 loss stays bf16 (rounded); inside, it is the f32 loss of the logits.
  EXPECT_EQ(cross_entropy(logits, targets).dtype(), DType::bf16);
  Autocast scope(DType::bf16);
  Tensor loss = cross_entropy(logits, targets);
  EXPECT_EQ(loss.dtype(), DType::f32);
  EXPECT_EQ(loss.item(), want);
}

TEST(Autocast, GradientsOfF32ParametersAreF32) {
  Tensor x = ramp(7, 16, 1.1), c = ramp(7, 4, 0.9);
  auto grad_of = [&](bool autocast) {
    Tensor w = ramp(16, 4, 0.5).requires_grad_();
    {
      Autocast scope(autocast ? DType::bf16 : DType::f32);
      (matmul(x, w) * c).sum().backward();
    }
    EXPECT_EQ(w.grad().dtype(), DType::f32);
    return w.grad().to_vector<double>();
  };
  const std::vector<double> bf = grad_of(true), f32 = grad_of(false);
  expect_near(bf, f32, 3e-2);
  bool differs = false;
  for (size_t i = 0; i < f32.size(); ++i) differs = differs || bf[i] != f32[i];
  EXPECT_TRUE(differs) << "the backward GEMM should run in bf16 too";
}

TEST(Autocast, NestsAndRejectsOtherDtypes) {
  {
    Autocast on(DType::bf16);
    {
      Autocast off(DType::f32);
      EXPECT_EQ(autocast_dtype(), DType::f32);
    }
    EXPECT_EQ(autocast_dtype(), DType::bf16);
  }
  EXPECT_EQ(autocast_dtype(), DType::f32);
  expect_error<DTypeError>([] { Autocast bad(DType::f16); }, {"[autocast]", "f16", "bf16"});
}

}  // namespace
