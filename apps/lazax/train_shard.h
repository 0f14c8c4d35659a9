// `lazax train --shard none|optimizer|full`: the data-parallel step with the gradients averaged
// (none: DDP's all_reduce), or the optimizer state and gradients split over the ranks
// (optimizer: ZeRO-1/2), or the parameters too (full: FSDP). docs/DISTRIBUTED.md.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lazax/nn/llama.h"
#include "lazax/nn/sharding.h"
#include "lazax/optim/optimizer.h"

namespace lazax::cli {

class TrainSharding {
 public:
  // Made after the model (and --init, set_remat, the precision) and before the optimizer, which
  // optimizes params(). With full, each decoder layer gathers its own parameters inside its
  // call (FSDP layer by layer), or with `layers` scan inside the scan's body (its xs are the
  // layers' shards, stacked).
  TrainSharding(nn::ShardMode mode, nn::Llama& model, int64_t bucket_bytes,
                nn::LayerMode layers = nn::LayerMode::lazy);
  ~TrainSharding();
  TrainSharding(const TrainSharding&) = delete;
  TrainSharding& operator=(const TrainSharding&) = delete;

  nn::ShardMode mode() const { return mode_; }
  // What the optimizer updates: the model's parameters (none) or this rank's shards.
  optim::NamedTensors params() const;
  // A checkpoint's optimizer state (full shapes) as this rank's optimizer holds it.
  optim::OptimizerState slice_state(const optim::OptimizerState& full) const;

  // After a resume and rank 0's parameters broadcast: the shards are sliced afresh from the
  // model's parameters; with full the model then drops its parameters (bind() brings them).
  void start();
  // full: sets the model's parameters to the ones gathered from the shards (differentiable when
  // grad mode is on); release() drops them again. No-ops for none and optimizer. Layer by layer
  // (see the constructor), the step binds the parameters outside the layers only, and the
  // layers gather theirs when they run: after bind(), the backward of a layer under
  // --mode assume_pure or scan gathers its parameters again (nn::regather_policy) instead of
  // keeping them, and reduce_scatters their gradients as it finishes the layer.
  void bind();
  void release();
  // full: every parameter gathered, without grad, run on every rank (collective): for
  // evaluation and sampling (the layers then run on their own parameters, on any rank).
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
  // With full under --mode assume_pure: what each gathering layer's backward keeps for
  // activations shaped like `h` (print_saved_residuals' lines; the arguments are the layer's
  // shards, 0[k], and h, 1). Empty otherwise: the model's own blocks run.
  std::vector<std::string> block_saved_residuals(const Tensor& h) const;
  // The bytes of parameters, gradients and optimizer state this rank holds now.
  int64_t state_bytes(const optim::Optimizer& opt) const;

 private:
  size_t index_of(const std::string& entry, std::string* param) const;
  void bind_all();  // every parameter gathered; the layers run on their own
  void gather_in_layers(nn::LayerMode layers);

  // full, layer by layer: each layer's parameter indices, and those of no layer.
  std::vector<std::vector<size_t>> layer_params_;
  std::vector<size_t> outer_params_;
  nn::Llama::LayersFn layers_fn_;  // set into the model by bind()
  std::function<std::vector<std::string>(const Tensor& h)> residuals_;  // assume_pure's

  nn::ShardMode mode_;
  nn::Llama& model_;
  int64_t bucket_bytes_;
  std::optional<nn::ParameterShards> shards_;
};

}  // namespace lazax::cli
