// `lazax train --shard` (train_shard.h).
#include "train_shard.h"

#include <string>

#include "lazax/core/error.h"
#include "lazax/dist/dist.h"
#include "lazax/nn/data_parallel.h"
#include "lazax/optim/clip_grad.h"
#include "lazax/runtime/context.h"

namespace lazax::cli {
namespace {

constexpr double kNoClip = 1e30;  // a bound no norm reaches: the norm is still computed

void set_parameters(nn::Llama& model, const std::vector<Tensor>& values) {
  const Tensor* it = values.data();
  nn::detail::module_unflatten(model, it);
}

}  // namespace

TrainSharding::TrainSharding(nn::ShardMode mode, nn::Llama& model, int64_t bucket_bytes)
    : mode_(mode), model_(model), bucket_bytes_(bucket_bytes) {
  if (mode_ != nn::ShardMode::none) shards_.emplace(model.named_parameters(), bucket_bytes);
}

optim::NamedTensors TrainSharding::params() const {
  return shards_ ? shards_->shards() : model_.named_parameters();
}

size_t TrainSharding::index_of(const std::string& entry, std::string* param) const {
  const size_t dot = entry.rfind('.');
  if (dot == std::string::npos) return shards_->size();
  *param = entry.substr(0, dot);
  for (size_t i = 0; i < shards_->size(); ++i)
    if (shards_->shards()[i].first == *param) return i;
  return shards_->size();
}

optim::OptimizerState TrainSharding::slice_state(const optim::OptimizerState& full) const {
  if (!shards_) return full;
  NoGrad no_grad;
  optim::OptimizerState out = full;
  std::string param;
  for (auto& [name, t] : out.tensors) {
    const size_t i = index_of(name, &param);
    // Entries that fit no parameter are left for the optimizer's checks to name.
    if (i < shards_->size() && t.defined() && t.shape() == shards_->full_shape(i))
      t = shards_->slice(i, t);
  }
  return out;
}

void TrainSharding::start() {
  if (!shards_) return;
  shards_->reslice(model_.parameters());
  if (mode_ == nn::ShardMode::full) release();
  lazax::sync();
}

void TrainSharding::bind() {
  if (mode_ == nn::ShardMode::full) set_parameters(model_, shards_->gather());
}

void TrainSharding::materialize() {
  if (mode_ != nn::ShardMode::full) return;
  NoGrad no_grad;
  bind();
  lazax::sync();
}

void TrainSharding::release() {
  if (mode_ == nn::ShardMode::full) set_parameters(model_, std::vector<Tensor>(shards_->size()));
}

Tensor TrainSharding::reduce_gradients(double max_norm) {
  const double bound = max_norm > 0 ? max_norm : kNoClip;
  switch (mode_) {
    case nn::ShardMode::none: {
      const std::vector<Tensor> params = model_.parameters();
      nn::average_gradients(params, bucket_bytes_);
      return optim::clip_grad_norm_(params, bound);
    }
    case nn::ShardMode::optimizer:
      shards_->scatter_gradients(model_.parameters());
      break;
    case nn::ShardMode::full:
      // all_gather's VJP summed each rank's gradient: the mean over equal parts of the batch.
      shards_->scale_gradients(1.0 / static_cast<double>(shards_->world()));
      break;
  }
  return nn::clip_sharded_grad_norm_(shards_->shard_tensors(), bound);
}

void TrainSharding::after_step() {
  if (mode_ == nn::ShardMode::optimizer) shards_->gather_into(model_.parameters());
  // full: the gathered parameters are dropped before the step's program runs, so that they are
  // its temporaries, freed after their last use, and not kept as its outputs.
  release();
}

optim::NamedTensors TrainSharding::full_weights() {
  NoGrad no_grad;
  bind();
  optim::NamedTensors w = model_.named_parameters();
  lazax::sync();
  return w;
}

optim::OptimizerState TrainSharding::full_state(const optim::Optimizer& opt) const {
  optim::OptimizerState s = opt.state_dict();
  if (!shards_) return s;
  NoGrad no_grad;
  std::string param;
  for (auto& [name, t] : s.tensors) {
    const size_t i = index_of(name, &param);
    if (i >= shards_->size() || name.ends_with(".step")) continue;
    if (t.shape() != Shape{shards_->shard_numel(i)}) {
      throw ValueError("[train] --shard: the optimizer state '" + name + "' is " + t.type_str() +
                       ", not the shape of its parameter's shard");
    }
    t = shards_->unshard(i, t);
  }
  lazax::sync();
  return s;
}

int64_t TrainSharding::state_bytes(const optim::Optimizer& opt) const {
  std::vector<Tensor> held;
  for (const Tensor& p : model_.parameters()) {
    held.push_back(p);
    if (p.defined()) held.push_back(p.grad());
  }
  for (const auto& [name, p] : opt.params()) {
    held.push_back(p);
    held.push_back(p.grad());
  }
  for (const auto& [name, t] : opt.state_dict().tensors)
    if (!name.ends_with(".step")) held.push_back(t);
  return nn::distinct_bytes(held);
}

}  // namespace lazax::cli
