// `lazax train --shard none|optimizer|full`: the data-parallel step with the gradients averaged
// (none: DDP's all_reduce), or the optimizer state and gradients split over the ranks
// (optimizer: ZeRO-1/2), or the parameters too (full: FSDP). docs/DISTRIBUTED.md.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "lazax/nn/llama.h"
#include "lazax/nn/sharding.h"
#include "lazax/optim/optimizer.h"

namespace lazax::cli {

class TrainSharding {
 public:
  // Made after the model (and --init) and before the optimizer, which optimizes params().
  TrainSharding(nn::ShardMode mode, nn::Llama& model, int64_t bucket_bytes);

  nn::ShardMode mode() const { return mode_; }
  // What the optimizer updates: the model's parameters (none) or this rank's shards.
  optim::NamedTensors params() const;
  // A checkpoint's optimizer state (full shapes) as this rank's optimizer holds it.
  optim::OptimizerState slice_state(const optim::OptimizerState& full) const;

  // After a resume and rank 0's parameters broadcast: the shards are sliced afresh from the
  // model's parameters; with full the model then drops its parameters (bind() brings them).
  void start();
  // full: sets the model's parameters to the ones gathered from the shards (differentiable when
  // grad mode is on); release() drops them again. No-ops for none and optimizer.
  void bind();
  void release();
  // full: bind() without grad, run on every rank (collective): for evaluation and sampling.
  void materialize();
  // After backward: the gradients averaged over the ranks (all_reduce, or reduce_scatter of
  // ZeRO, or all_gather's VJP of FSDP, scaled to the mean), clipped to the global norm
  // `max_norm` (0: not clipped); returns the norm.
  Tensor reduce_gradients(double max_norm);
  // After opt.step(): optimizer mode gathers the updated shards into the parameters.
  void after_step();

  // The weights and the optimizer state in full shapes, for a checkpoint (collective: every
  // rank calls it; synced). The model stays bound (bind()) until release().
  optim::NamedTensors full_weights();
  optim::OptimizerState full_state(const optim::Optimizer& opt) const;
  // The bytes of parameters, gradients and optimizer state this rank holds now.
  int64_t state_bytes(const optim::Optimizer& opt) const;

 private:
  size_t index_of(const std::string& entry, std::string* param) const;

  nn::ShardMode mode_;
  nn::Llama& model_;
  int64_t bucket_bytes_;
  std::optional<nn::ParameterShards> shards_;
};

}  // namespace lazax::cli
