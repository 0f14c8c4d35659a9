// Data parallel training (PyTorch's DistributedDataParallel, as ops of the step's program): every
// rank holds the whole model, takes its part of each batch, and averages the gradients with the
// others before the optimizer step, so every rank applies the same update.
//
//   nn::broadcast_parameters(model.parameters());          // once: rank 0's values everywhere
//   for (...) {
//     opt.zero_grad();
//     model.forward(my_part_of_the_batch).backward();
//     nn::average_gradients(model.parameters());             // pmean, in buckets
//     opt.step();  sync();                                   // one program per step, every rank
//   }
//
// In a world of one both are no-ops. docs/DISTRIBUTED.md.
#pragma once
#include <cstdint>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax::nn {

// Sets every parameter to rank 0's value (a collective_broadcast each, recorded lazily).
void broadcast_parameters(const std::vector<Tensor>& params);

// Replaces each parameter's gradient by its mean over the ranks: the gradients, flattened, are
// packed into buckets of at most `bucket_bytes` (one dtype each) in reverse parameter order (the
// last layers' gradients, which the backward computes first, fill the first bucket), one
// all_reduce(mean) per bucket. Parameters without a gradient are left out, so every rank must
// have gradients for the same parameters. Returns the number of buckets.
int64_t average_gradients(const std::vector<Tensor>& params, int64_t bucket_bytes = 25 << 20);

}  // namespace lazax::nn
