// Learning-rate schedules: the learning rate for each step, as a function of the step's index
// (0 for the first call of Optimizer::step()). Use: opt.set_lr(schedule(step)); opt.step();
#pragma once
#include <cstdint>
#include <functional>

namespace lazax::optim {

using LRSchedule = std::function<double(int64_t step)>;

// The same learning rate at every step.
LRSchedule constant_lr(double lr);

// Linear warmup to `peak_lr`, then cosine decay to `min_lr` at step `total_steps`:
//   step < warmup:  peak_lr * (step + 1) / warmup
//   otherwise:      min_lr + (peak_lr - min_lr) * (1 + cos(pi * t)) / 2,
//                   t = min(1, (step - warmup) / max(1, total_steps - warmup))
// (the first step already trains at peak_lr / warmup, not 0; steps from total_steps on stay at
// min_lr). It is PyTorch's SequentialLR of LinearLR(start_factor=1/warmup, total_iters=warmup-1)
// and CosineAnnealingLR(T_max=total_steps-warmup, eta_min=min_lr) with milestones=[warmup],
// for the steps before total_steps (tests/optim/torch_optim.py checks this). ValueError for
// peak_lr < 0, min_lr outside [0, peak_lr], warmup < 0 or total_steps < warmup.
LRSchedule warmup_cosine_lr(double peak_lr, int64_t warmup, int64_t total_steps,
                            double min_lr = 0.0);

}  // namespace lazax::optim
