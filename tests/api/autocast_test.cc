// Autocast(bf16) (lazax/api/autocast.h): matmul of f32 operands multiplies in bf16 and returns
// f32; other ops stay as written; gradients of f32 parameters come back f32; the scope restores
// the previous setting.
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

TEST(Autocast, MatmulRunsInBf16AndReturnsF32) {
  Tensor a = ramp(6, 40, 1.3), b = ramp(40, 5, 0.7);
  const std::vector<double> f32 = matmul(a, b).to_vector<double>();
  std::vector<double> ac;
  {
    Autocast scope(DType::bf16);
    EXPECT_EQ(autocast_dtype(), DType::bf16);
    ac = values(matmul(a, b), DType::f32, {6, 5});
  }
  EXPECT_EQ(autocast_dtype(), DType::f32);
  // Exactly the bf16 product, converted (cpu: the convert folds into the dot, unrounded).
  const std::vector<double> by_hand =
      matmul(a.to(DType::bf16), b.to(DType::bf16)).to(DType::f32).to_vector<double>();
  expect_near(ac, by_hand, 0x1p-8);
  expect_near(ac, f32, 3e-2);
  bool differs = false;
  for (size_t i = 0; i < f32.size(); ++i) differs = differs || ac[i] != f32[i];
  EXPECT_TRUE(differs) << "autocast's matmul should not be the f32 one";
}

TEST(Autocast, OtherOpsStayF32) {
  Tensor a = ramp(4, 8, 1.0), b = ramp(8, 3, 1.0);
  Autocast scope(DType::bf16);
  Tensor y = softmax(matmul(a, b), -1);
  EXPECT_EQ(y.dtype(), DType::f32);
  EXPECT_EQ((y * 2.0).exp().log().sum().dtype(), DType::f32);
  // bf16 operands are left as they are.
  EXPECT_EQ(matmul(a.to(DType::bf16), b.to(DType::bf16)).dtype(), DType::bf16);
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
