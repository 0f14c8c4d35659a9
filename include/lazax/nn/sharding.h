// Sharded training state over the ranks (ZeRO-1/2 and FSDP, as ops of the step's program).
//
// Each parameter, flattened and padded with zeros to a multiple of N = dist::world_size(), is cut
// into N contiguous slices; rank r keeps slice r as its shard, a new leaf that requires grad.
// An optimizer built over the shards keeps 1/N of its state.
//
//   ZeRO (--shard optimizer): the module keeps its full parameters
//     model.forward(part).backward();
//     shards.scatter_gradients(params);    // reduce_scatter(mean): each rank its 1/N
//     opt.step();                          // an optimizer over shards.shards()
//     shards.gather_into(params);          // all_gather: every rank the updated parameters
//   FSDP (--shard full): the module keeps no parameters of its own
//     std::vector<Tensor> full = shards.gather();   // differentiable; set into the module
//     forward(full).backward();            // all_gather's VJP: the shards get summed gradients
//     shards.scale_gradients(1.0 / N);  opt.step();
//   FSDP layer by layer: each layer gathers its own parameters inside its call
//     h = layer(gather_shards(layer_shards, layer_shapes), h);   // one all_gather; under
//     assume_pure with regather_policy(...) the backward gathers again instead of keeping them
//
// In a world of one the shards are the parameters' values, flattened. docs/DISTRIBUTED.md.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/remat.h"

namespace lazax::nn {

enum class ShardMode { none, optimizer, full };
// "none", "optimizer" or "full"; anything else is a ValueError naming --shard.
ShardMode shard_mode_from_string(const std::string& s);
const char* shard_mode_name(ShardMode m);

class ParameterShards {
 public:
  using Named = std::vector<std::pair<std::string, Tensor>>;
  // This rank's shard of each parameter (named as the parameter), from the parameters' values.
  // Every parameter must be floating; every rank must pass the same shapes in the same order.
  explicit ParameterShards(const Named& params, int64_t bucket_bytes = 25 << 20);

  const Named& shards() const { return shards_; }
  std::vector<Tensor> shard_tensors() const;
  size_t size() const { return shards_.size(); }
  int64_t world() const { return world_; }
  int64_t shard_numel(size_t i) const { return per_rank_[i]; }
  const Shape& full_shape(size_t i) const { return shapes_[i]; }

  // Every parameter's full value from every rank's shard: one all_gather per bucket, unpadded
  // and reshaped. Differentiable: the VJP of all_gather is a summing reduce_scatter, so a loss
  // built from these gives each shard the gradient summed over the ranks' losses.
  std::vector<Tensor> gather() const;
  // The same for the parameters `which` only (ascending indices); the others are left undefined.
  std::vector<Tensor> gather(const std::vector<size_t>& which) const;
  // Parameter i's full shape from a tensor shaped as its shard, on every rank (a collective:
  // every rank calls it for the same i). For the optimizer state of a checkpoint.
  Tensor unshard(size_t i, const Tensor& shard) const;
  // This rank's slice of a tensor of parameter i's full shape (no communication).
  Tensor slice(size_t i, const Tensor& full) const;

  // ZeRO: sets each shard's grad to this rank's slice of the mean over the ranks of the
  // parameters' grads (one reduce_scatter(mean) per bucket, last parameters first) and drops
  // the parameters' grads. A parameter without a grad is an error (every rank must have all).
  // Returns the number of buckets.
  int64_t scatter_gradients(const std::vector<Tensor>& params);
  // ZeRO: copies the shards, gathered (one all_gather per bucket), into the parameters (copy_).
  void gather_into(const std::vector<Tensor>& params) const;
  // Copies this rank's slice of each parameter into its shard (after a resume or a broadcast).
  void reslice(const std::vector<Tensor>& params);
  // FSDP: multiplies each shard's grad by `factor` (1/N turns the sum over ranks into the mean).
  void scale_gradients(double factor);

 private:
  // Buckets of parameter indices (all of them, or `which`), in order, each of one dtype and at
  // most bucket_bytes_.
  std::vector<std::vector<size_t>> buckets(bool reverse) const;
  std::vector<std::vector<size_t>> buckets(const std::vector<size_t>& which) const;
  Tensor padded_rows(size_t i, const Tensor& full) const;  // [N, shard]: full, flat and padded

  Named shards_;
  std::vector<Shape> shapes_;
  std::vector<int64_t> per_rank_;
  int64_t world_ = 1, rank_ = 0, bucket_bytes_;
};

// A parameter of shape `full` from every rank's shard of it (flat: ceil(numel / N) elements, the
// last rank's padded with zeros, as ParameterShards cuts them): one all_gather, then the padding
// dropped. Differentiable (the VJP is a summing reduce_scatter: each rank's shard gets the sum of
// the ranks' gradients), and usable inside assume_pure. Every rank calls it in the same order.
Tensor gather_shard(const Tensor& shard, const Shape& full);
// The same for several parameters as one all_gather of their shards side by side (a bucket).
std::vector<Tensor> gather_shards(const std::vector<Tensor>& shards,
                                  const std::vector<Shape>& full);

// The remat policy of a layer that gathers its parameters inside its call (gather_shards): `base`
// (when null, the split without a policy: RematPolicy::names_transparent) except that no
// all_gather's result, nor a part of one (its slices, reshapes, transposes, converts), is saved, so
// the backward gathers the parameters again and the forward keeps only the shards (PyTorch FSDP's
// reshard_after_forward; JAX's FSDP under checkpoint). Named "regather(<base's name>)". A
// memory_budget is returned as it is: its cut weighs a gather like any other recomputation.
RematPolicy regather_policy(const RematPolicy* base);

// The global 2-norm of gradients split over the ranks, sqrt(psum(sum of squares of the local
// ones)), and clips them in place by max_norm as optim::clip_grad_norm_ does
// (min(1, max_norm / (norm + 1e-6))). Returns the norm; 0 when no tensor has a grad.
Tensor clip_sharded_grad_norm_(const std::vector<Tensor>& shards, double max_norm);

// Bytes of the distinct defined tensors among `tensors` (a handle listed twice counts once).
int64_t distinct_bytes(const std::vector<Tensor>& tensors);

}  // namespace lazax::nn
