// Learning-rate schedules (values of the documented formula; PyTorch's schedulers: torch_optim.py)
// and clip_grad_norm_ (values, and that it reads nothing: no graph break).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "lazax/api/tensor.h"
#include "lazax/core/metrics.h"
#include "lazax/optim/clip_grad.h"
#include "lazax/optim/schedule.h"

namespace lazax::optim {
namespace {

TEST(Schedule, WarmupCosineFollowsTheFormula) {
  LRSchedule s = warmup_cosine_lr(1e-3, 4, 24, 1e-4);
  EXPECT_DOUBLE_EQ(s(0), 1e-3 / 4);
  EXPECT_DOUBLE_EQ(s(3), 1e-3);
  EXPECT_DOUBLE_EQ(s(4), 1e-3);  // the decay starts at the peak
  EXPECT_DOUBLE_EQ(s(14), 1e-4 + 0.9e-3 * 0.5);
  EXPECT_DOUBLE_EQ(s(9), 1e-4 + 0.9e-3 * (1 + std::cos(std::numbers::pi / 4)) / 2);
  EXPECT_DOUBLE_EQ(s(24), 1e-4);
  EXPECT_DOUBLE_EQ(s(1000), 1e-4);  // stays at the minimum
  LRSchedule no_warmup = warmup_cosine_lr(2.0, 0, 10);
  EXPECT_DOUBLE_EQ(no_warmup(0), 2.0);
  EXPECT_DOUBLE_EQ(no_warmup(10), 0.0);
  EXPECT_DOUBLE_EQ(constant_lr(0.3)(12345), 0.3);
}

TEST(Schedule, BadArgumentsAreValueErrors) {
  EXPECT_THROW(warmup_cosine_lr(-1, 0, 10), ValueError);
  EXPECT_THROW(warmup_cosine_lr(1, -1, 10), ValueError);
  EXPECT_THROW(warmup_cosine_lr(1, 11, 10), ValueError);
  EXPECT_THROW(warmup_cosine_lr(1, 1, 10, 2.0), ValueError);
  EXPECT_THROW(constant_lr(-0.1), ValueError);
  EXPECT_THROW(constant_lr(NAN), ValueError);
}

TEST(ClipGradNorm, ScalesByTheGlobalNormLazily) {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_(), c = zeros({3});
  a.set_grad(from_vector<float>({3.0f, 0.0f}, {2}));
  b.set_grad(from_vector<float>({4.0f}, {1}));
  const int64_t breaks = metrics::counter("GraphBreaks").get();
  Tensor norm = clip_grad_norm_(std::vector<Tensor>{a, b, c}, 1.0);
  EXPECT_TRUE(norm.is_pending());
  lazax::sync();
  EXPECT_EQ(metrics::counter("GraphBreaks").get(), breaks);
  EXPECT_FLOAT_EQ(static_cast<float>(norm.item()), 5.0f);
  const double coef = 1.0 / (5.0 + 1e-6);
  EXPECT_FLOAT_EQ(a.grad().to_vector<float>()[0], static_cast<float>(3.0 * coef));
  EXPECT_FLOAT_EQ(b.grad().to_vector<float>()[0], static_cast<float>(4.0 * coef));
  EXPECT_FALSE(c.grad().defined());
  // Below max_norm nothing changes.
  Tensor n2 = clip_grad_norm_(std::vector<Tensor>{a, b}, 10.0);
  EXPECT_NEAR(n2.item(), 1.0, 1e-5);
  EXPECT_FLOAT_EQ(a.grad().to_vector<float>()[0], static_cast<float>(3.0 * coef));
  // No gradients: a zero norm.
  EXPECT_EQ(clip_grad_norm_(std::vector<Tensor>{c}, 1.0).item(), 0.0);
  EXPECT_THROW(clip_grad_norm_(std::vector<Tensor>{a}, 0.0), ValueError);
  EXPECT_THROW(clip_grad_norm_(std::vector<Tensor>{a}, INFINITY), ValueError);
}

}  // namespace
}  // namespace lazax::optim
