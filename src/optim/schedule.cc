// Learning-rate schedules (lazax/optim/schedule.h).
#include "lazax/optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "lazax/core/error.h"

namespace lazax::optim {

LRSchedule constant_lr(double lr) {
  if (!(lr >= 0) || !std::isfinite(lr))
    throw ValueError("[constant_lr] invalid learning rate " + std::to_string(lr));
  return [lr](int64_t) { return lr; };
}

LRSchedule warmup_cosine_lr(double peak_lr, int64_t warmup, int64_t total_steps, double min_lr) {
  auto bad = [&](const std::string& what) {
    throw ValueError("[warmup_cosine_lr] " + what + " (peak_lr " + std::to_string(peak_lr) +
                     ", warmup " + std::to_string(warmup) + ", total_steps " +
                     std::to_string(total_steps) + ", min_lr " + std::to_string(min_lr) + ")");
  };
  if (!(peak_lr >= 0) || !std::isfinite(peak_lr)) bad("peak_lr must be >= 0 and finite");
  if (!(min_lr >= 0) || !(min_lr <= peak_lr)) bad("min_lr must be in [0, peak_lr]");
  if (warmup < 0) bad("warmup must be >= 0");
  if (total_steps < warmup) bad("total_steps must be >= warmup");
  return [=](int64_t step) {
    if (step < warmup) return peak_lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
    const double t =
        std::min(1.0, static_cast<double>(step - warmup) /
                          static_cast<double>(std::max<int64_t>(1, total_steps - warmup)));
    return min_lr + (peak_lr - min_lr) * (1 + std::cos(std::numbers::pi * t)) / 2;
  };
}

}  // namespace lazax::optim
