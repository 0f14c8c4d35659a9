// Collectives on tensors: ops of the program, recorded like any other (docs/DISTRIBUTED.md).
// Each runs over replica groups of `group_size` consecutive ranks; 0 means every rank
// (dist::world_size() when the op is recorded). In a world of one each is the identity. Every
// rank must record the same collectives in the same order (a mismatch is a DistError on every
// rank, before data moves). JAX's names are aliases: psum, pmean, pmax, pmin, psum_scatter,
// axis_index. Gradients: psum's is psum, all_gather's is reduce_scatter and the other way round,
// all_to_all's is all_to_all with the axes swapped (as in jax.lax).
#pragma once
#include "lazax/api/tensor.h"
#include "lazax/core/reduce_kind.h"

namespace lazax {

// The reduction of every rank's x (same type on every rank): sum, mean, max or min.
Tensor all_reduce(const Tensor& x, ReduceKind kind = ReduceKind::sum, int64_t group_size = 0);
Tensor psum(const Tensor& x, int64_t group_size = 0);
Tensor pmean(const Tensor& x, int64_t group_size = 0);
Tensor pmax(const Tensor& x, int64_t group_size = 0);
Tensor pmin(const Tensor& x, int64_t group_size = 0);
// The ranks' x concatenated along `axis`, in rank order (as torch.distributed's
// all_gather_into_tensor, and jax.lax.all_gather with tiled=True).
Tensor all_gather(const Tensor& x, int64_t axis = 0, int64_t group_size = 0);
// The reduction of every rank's x, split along `axis` into group_size parts: rank r keeps part r
// (torch.distributed's reduce_scatter_tensor; x.size(axis) must divide by the group size).
Tensor reduce_scatter(const Tensor& x, int64_t axis = 0, ReduceKind kind = ReduceKind::sum,
                      int64_t group_size = 0);
Tensor psum_scatter(const Tensor& x, int64_t axis = 0, int64_t group_size = 0);
// x split along split_axis into group_size parts, part j sent to rank j; the parts received are
// concatenated along concat_axis, in rank order.
Tensor all_to_all(const Tensor& x, int64_t split_axis, int64_t concat_axis, int64_t group_size = 0);
// The group's rank `root`'s x, on every rank of the group.
Tensor broadcast_from(const Tensor& x, int64_t root = 0, int64_t group_size = 0);
// This rank's index in its group, an i32 scalar (jax.lax.axis_index).
Tensor axis_index(int64_t group_size = 0);

}  // namespace lazax
