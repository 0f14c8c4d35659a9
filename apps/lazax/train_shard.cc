// `lazax train --shard` (train_shard.h).
#include "train_shard.h"

#include <functional>
#include <memory>
#include <string>

#include "lazax/autodiff/control_flow.h"
#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/remat.h"
#include "lazax/core/error.h"
#include "lazax/dist/dist.h"
#include "lazax/nn/data_parallel.h"
#include "lazax/optim/clip_grad.h"
#include "lazax/runtime/context.h"

namespace lazax::cli {
namespace {

constexpr double kNoClip = 1e30;  // a bound no norm reaches: the norm is still computed

void set_parameters(nn::Module& m, const std::vector<Tensor>& values) {
  const Tensor* it = values.data();
  nn::detail::module_unflatten(m, it);
}

// One decoder layer whose parameters are gathered from their shards inside the call: the block's
// structure and precision policy come from a copy of layer 0 (holding no tensors), its
// parameters from gather_shard in the order the block visits them.
struct GatheredBlock {
  std::shared_ptr<const nn::TransformerBlock> like;
  std::vector<Shape> shapes;
  Tensor operator()(const std::vector<Tensor>& shards, const Tensor& h) const {
    // One all_gather per parameter, not one per layer (gather_shards): each gathered parameter
    // is freed after its last reader, where a layer's bucket lives until its last part's
    // (docs/DISTRIBUTED.md, "Not yet").
    std::vector<Tensor> full;
    full.reserve(shards.size());
    for (size_t k = 0; k < shards.size(); ++k)
      full.push_back(nn::gather_shard(shards[k], shapes[k]));
    nn::TransformerBlock b = *like;
    const Tensor* it = full.data();
    nn::detail::module_unflatten(b, it);
    return b(h);
  }
};

}  // namespace

TrainSharding::TrainSharding(nn::ShardMode mode, nn::Llama& model, int64_t bucket_bytes,
                             nn::LayerMode layers)
    : mode_(mode), model_(model), bucket_bytes_(bucket_bytes) {
  if (mode_ != nn::ShardMode::none) shards_.emplace(model.named_parameters(), bucket_bytes);
  if (mode_ == nn::ShardMode::full) gather_in_layers(layers);
}

TrainSharding::~TrainSharding() {
  if (layers_fn_) model_.set_layers_fn(nullptr);
}

void TrainSharding::gather_in_layers(nn::LayerMode layers) {
  const nn::NamedTensors named = model_.named_parameters();
  layer_params_.resize(model_.layers.size());
  for (size_t i = 0; i < named.size(); ++i) {
    const std::string& name = named[i].first;
    bool in_layer = false;
    for (size_t l = 0; l < layer_params_.size() && !in_layer; ++l) {
      if (name.starts_with("layers." + std::to_string(l) + ".")) {
        layer_params_[l].push_back(i);
        in_layer = true;
      }
    }
    if (!in_layer) outer_params_.push_back(i);
  }
  GatheredBlock block;
  for (size_t i : layer_params_.at(0)) block.shapes.push_back(shards_->full_shape(i));
  for (const std::vector<size_t>& l : layer_params_) {
    bool same = l.size() == block.shapes.size();
    for (size_t k = 0; same && k < l.size(); ++k)
      same = shards_->full_shape(l[k]) == block.shapes[k];
    if (!same) {
      throw ShapeError(
          "[train] --shard full gathers layer by layer, so every layer needs the "
          "parameter shapes of layer 0");
    }
  }
  auto like = std::make_shared<nn::TransformerBlock>(model_.layers[0]);
  set_parameters(*like, std::vector<Tensor>(block.shapes.size()));
  block.like = std::move(like);
  // What the backward of a layer keeps: the model's --remat, but never a gathered parameter.
  auto regather = std::make_shared<const RematPolicy>(nn::regather_policy(model_.remat().get()));
  if (layers == nn::LayerMode::scan) {
    // One scan over the layers' shards stacked [layers, shard]; its body gathers the layer's
    // parameters, and under regather its backward gathers them again. (No prevent_cse barrier:
    // the backward is a scan of its own, which CSE cannot merge with the forward's, as JAX
    // advises for checkpoint inside scan; the barrier measured 16 MB more peak RSS per rank.)
    layers_fn_ = [this, block, regather](const Tensor& h, nn::LayerMode) {
      std::vector<Tensor> xs;
      xs.reserve(block.shapes.size());
      for (size_t k = 0; k < block.shapes.size(); ++k) {
        std::vector<Tensor> layer_shards;
        layer_shards.reserve(layer_params_.size());
        for (const std::vector<size_t>& l : layer_params_)
          layer_shards.push_back(shards_->shards()[l[k]].second);
        xs.push_back(stack(layer_shards, 0));
      }
      auto body = [block](const Tensors& carry, const Tensors& x) {
        return std::make_pair(Tensors{block(x, carry[0])}, Tensors{});
      };
      return scan(body, {h}, xs, ScanOptions{.remat = regather, .prevent_cse = false}).first[0];
    };
    return;
  }
  std::function<Tensor(const std::vector<Tensor>&, const Tensor&)> run = block;
  if (layers == nn::LayerMode::assume_pure) {
    PureOptions opts;
    opts.name = "fsdp_block";
    opts.remat = regather;
    auto pure = std::make_shared<PureFunction<GatheredBlock>>(assume_pure(block, opts));
    run = [pure](const std::vector<Tensor>& shards, const Tensor& h) { return (*pure)(shards, h); };
    residuals_ = [this, pure](const Tensor& h) {
      std::vector<Tensor> shards;
      for (size_t i : layer_params_.at(0)) shards.push_back(shards_->shards()[i].second);
      return saved_residuals(*pure, shards, h);
    };
  }
  layers_fn_ = [this, run](const Tensor& h_in, nn::LayerMode) {
    Tensor h = h_in;
    for (const std::vector<size_t>& l : layer_params_) {
      std::vector<Tensor> shards;
      shards.reserve(l.size());
      for (size_t i : l) shards.push_back(shards_->shards()[i].second);
      h = run(shards, h);
    }
    return h;
  };
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
  if (mode_ != nn::ShardMode::full) return;
  if (!layers_fn_) return bind_all();
  set_parameters(model_, shards_->gather(outer_params_));
  model_.set_layers_fn(layers_fn_);
}

void TrainSharding::bind_all() {
  model_.set_layers_fn(nullptr);
  set_parameters(model_, shards_->gather());
}

void TrainSharding::materialize() {
  if (mode_ != nn::ShardMode::full) return;
  NoGrad no_grad;
  bind_all();
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
  if (mode_ == nn::ShardMode::full) bind_all();
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

std::vector<std::string> TrainSharding::block_saved_residuals(const Tensor& h) const {
  return residuals_ ? residuals_(h) : std::vector<std::string>{};
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
