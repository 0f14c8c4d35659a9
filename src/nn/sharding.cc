// ParameterShards and the sharded gradient clipping (lazax/nn/sharding.h).
#include "lazax/nn/sharding.h"

#include <cmath>
#include <set>

#include "lazax/api/ops_collective.h"
#include "lazax/api/ops_shape.h"
#include "lazax/core/error.h"
#include "lazax/dist/dist.h"

namespace lazax::nn {

ShardMode shard_mode_from_string(const std::string& s) {
  if (s == "none") return ShardMode::none;
  if (s == "optimizer") return ShardMode::optimizer;
  if (s == "full") return ShardMode::full;
  throw ValueError("[train] --shard '" + s +
                   "' is not a sharding mode; use none, optimizer (ZeRO: the optimizer state and "
                   "gradients split over the ranks) or full (FSDP: the parameters too)");
}

const char* shard_mode_name(ShardMode m) {
  switch (m) {
    case ShardMode::optimizer:
      return "optimizer";
    case ShardMode::full:
      return "full";
    case ShardMode::none:
      break;
  }
  return "none";
}

ParameterShards::ParameterShards(const Named& params, int64_t bucket_bytes)
    : world_(dist::world_size()), rank_(dist::rank()), bucket_bytes_(bucket_bytes) {
  if (bucket_bytes <= 0) throw ValueError("[shard] the bucket size must be > 0 bytes");
  NoGrad no_grad;
  for (const auto& [name, p] : params) {
    if (!p.defined() || !is_floating(p.dtype())) {
      throw ValueError("[shard] parameter '" + name + "' is " +
                       (p.defined() ? p.type_str() : std::string("undefined")) +
                       "; only floating parameters can be sharded");
    }
    shapes_.push_back(p.shape());
    per_rank_.push_back((p.numel() + world_ - 1) / world_);
    Tensor s = slice(shapes_.size() - 1, p).detach();
    s.requires_grad_();
    shards_.emplace_back(name, s);
  }
}

std::vector<Tensor> ParameterShards::shard_tensors() const {
  std::vector<Tensor> out;
  out.reserve(shards_.size());
  for (const auto& [name, s] : shards_) out.push_back(s);
  return out;
}

Tensor ParameterShards::padded_rows(size_t i, const Tensor& full) const {
  Tensor flat = full.reshape({-1});
  const int64_t pad = per_rank_[i] * world_ - flat.numel();
  if (pad > 0) flat = cat({flat, zeros({pad}, flat.dtype())}, 0);
  return flat.reshape({world_, per_rank_[i]});
}

Tensor ParameterShards::slice(size_t i, const Tensor& full) const {
  if (full.shape() != shapes_[i]) {
    throw ShapeError("[shard] '" + shards_[i].first + "' is " + full.type_str() +
                     " but the parameter it shards has another shape");
  }
  return narrow(padded_rows(i, full), 0, rank_, 1).reshape({per_rank_[i]});
}

Tensor ParameterShards::unshard(size_t i, const Tensor& shard) const {
  return gather_shard(shard, shapes_[i]);
}

std::vector<Tensor> gather_shards(const std::vector<Tensor>& shards,
                                  const std::vector<Shape>& full) {
  if (shards.empty() || shards.size() != full.size()) {
    throw ValueError("[gather_shards] " + std::to_string(shards.size()) + " shards for " +
                     std::to_string(full.size()) +
                     " shapes; give one shard per shape (at least one)");
  }
  const int64_t n = dist::world_size();
  std::vector<int64_t> widths;
  for (size_t k = 0; k < shards.size(); ++k) {
    widths.push_back((full[k].numel() + n - 1) / n);
    if (shards[k].numel() != widths.back()) {
      throw ShapeError("[gather_shards] shard " + std::to_string(k) + " is " +
                       shards[k].type_str() + "; a parameter of " +
                       std::to_string(full[k].numel()) + " elements has shards of " +
                       std::to_string(widths.back()) + " over " + std::to_string(n) + " ranks");
    }
  }
  Tensor local = shards.size() == 1 ? shards[0].reshape({-1}) : cat(shards, 0);
  Tensor rows = all_gather(local.reshape({1, local.numel()}), 0);  // [N, sum of the widths]
  std::vector<Tensor> out;
  int64_t at = 0;
  for (size_t k = 0; k < shards.size(); ++k) {
    // (The narrows' VJP, pads summed, is simplified into the concatenation of their cotangents.)
    Tensor flat = (shards.size() == 1 ? rows : narrow(rows, 1, at, widths[k])).reshape({-1});
    at += widths[k];
    if (flat.numel() != full[k].numel()) flat = narrow(flat, 0, 0, full[k].numel());
    out.push_back(flat.reshape(std::vector<int64_t>(full[k].begin(), full[k].end())));
  }
  return out;
}

Tensor gather_shard(const Tensor& shard, const Shape& full) {
  return gather_shards({shard}, {full})[0];
}

namespace {
// An all_gather's result, or a part of it (slices, reshapes, transposes, converts of one): what
// the backward of a gathering layer gathers again instead of keeping.
bool gathered(const Function& f, const Node& n) {
  const Node* m = &n;
  for (int depth = 0; depth < 16; ++depth) {
    if (m->op == OpCode::all_gather) return true;
    if ((!has_flag(m->op, kLayout) && m->op != OpCode::convert) || m->operands.size() != 1)
      return false;
    m = &f.node(m->operands[0].node);
  }
  return false;
}
}  // namespace

RematPolicy regather_policy(const RematPolicy* base) {
  RematPolicy p = base ? *base : policies::everything_saveable();
  if (!p.saveable) return p;    // memory_budget: the budget's cut decides, gathers included
  p.names_transparent = !base;  // none: the split without a policy, whose names are transparent
  p.name = "regather(" + (base ? p.name : std::string("default")) + ")";
  p.saveable = [keep = p.saveable](const Function& f, const Node& n) {
    return !gathered(f, n) && keep(f, n);
  };
  return p;
}

std::vector<std::vector<size_t>> ParameterShards::buckets(bool reverse) const {
  std::vector<size_t> all(shards_.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = reverse ? all.size() - 1 - k : k;
  return buckets(all);
}

std::vector<std::vector<size_t>> ParameterShards::buckets(const std::vector<size_t>& which) const {
  std::vector<std::vector<size_t>> out;
  int64_t bytes = 0;
  for (size_t i : which) {
    const DType t = shards_[i].second.dtype();
    const int64_t b = per_rank_[i] * world_ * static_cast<int64_t>(dtype_size(t));
    if (out.empty() || bytes + b > bucket_bytes_ ||
        shards_[out.back().back()].second.dtype() != t) {
      out.emplace_back();
      bytes = 0;
    }
    out.back().push_back(i);
    bytes += b;
  }
  return out;
}

std::vector<Tensor> ParameterShards::gather() const {
  std::vector<size_t> all(shards_.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = k;
  return gather(all);
}

std::vector<Tensor> ParameterShards::gather(const std::vector<size_t>& which) const {
  std::vector<Tensor> full(shards_.size());
  for (size_t i : which) {
    if (i >= shards_.size())
      throw ValueError("[shard] gather: no parameter " + std::to_string(i) + " is sharded");
  }
  for (const std::vector<size_t>& bucket : buckets(which)) {
    std::vector<Tensor> parts;
    std::vector<Shape> shapes;
    for (size_t i : bucket) {
      parts.push_back(shards_[i].second);
      shapes.push_back(shapes_[i]);
    }
    std::vector<Tensor> got = gather_shards(parts, shapes);
    for (size_t k = 0; k < bucket.size(); ++k) full[bucket[k]] = got[k];
  }
  return full;
}

int64_t ParameterShards::scatter_gradients(const std::vector<Tensor>& params) {
  if (params.size() != shards_.size())
    throw ValueError("[shard] scatter_gradients: the parameters are not the ones sharded");
  NoGrad no_grad;
  const auto bs = buckets(true);
  for (const std::vector<size_t>& bucket : bs) {
    std::vector<Tensor> rows;
    for (size_t i : bucket) {
      if (!params[i].grad().defined()) {
        throw ValueError("[shard] parameter '" + shards_[i].first +
                         "' has no gradient; with sharding every parameter needs one on every "
                         "rank (use it in the loss)");
      }
      rows.push_back(padded_rows(i, params[i].grad().to(shards_[i].second.dtype())));
    }
    Tensor mean =
        reduce_scatter(rows.size() == 1 ? rows[0] : cat(rows, 1), 0, ReduceKind::mean);  // [1, .]
    int64_t at = 0;
    for (size_t i : bucket) {
      shards_[i].second.set_grad(narrow(mean, 1, at, per_rank_[i]).reshape({per_rank_[i]}));
      at += per_rank_[i];
      Tensor p = params[i];
      p.set_grad(Tensor());
    }
  }
  return static_cast<int64_t>(bs.size());
}

void ParameterShards::gather_into(const std::vector<Tensor>& params) const {
  if (params.size() != shards_.size())
    throw ValueError("[shard] gather_into: the parameters are not the ones sharded");
  NoGrad no_grad;
  std::vector<Tensor> full = gather();
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];  // a handle to the same parameter: copy_ rebinds it for every holder
    p.copy_(full[i].to(p.dtype()));
  }
}

void ParameterShards::reslice(const std::vector<Tensor>& params) {
  if (params.size() != shards_.size())
    throw ValueError("[shard] reslice: the parameters are not the ones sharded");
  NoGrad no_grad;
  for (size_t i = 0; i < params.size(); ++i) shards_[i].second.copy_(slice(i, params[i]));
}

void ParameterShards::scale_gradients(double factor) {
  NoGrad no_grad;
  for (auto& [name, s] : shards_) {
    Tensor g = s.grad();
    if (g.defined()) s.set_grad(g * Tensor(Literal::scalar_of(g.dtype(), factor)));
  }
}

Tensor clip_sharded_grad_norm_(const std::vector<Tensor>& shards, double max_norm) {
  if (!(max_norm > 0) || !std::isfinite(max_norm)) {
    throw ValueError("[clip_sharded_grad_norm_] max_norm must be > 0 and finite, got " +
                     std::to_string(max_norm) + " (to turn clipping off, do not call it)");
  }
  NoGrad off;
  std::vector<Tensor> grads;
  for (const Tensor& p : shards)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return Tensor(Literal::scalar(0.0f));
  const DType t = grads[0].dtype();
  std::vector<Tensor> squares;
  squares.reserve(grads.size());
  for (const Tensor& g : grads) squares.push_back(sum(square(g)).to(t));
  Tensor total = sqrt(psum(sum(stack(squares))));
  Tensor coef = Tensor(Literal::scalar_of(t, 1.0)) / (total + Tensor(Literal::scalar_of(t, 1e-6))) *
                Tensor(Literal::scalar_of(t, max_norm));
  Tensor clamped = minimum(coef, Tensor(Literal::scalar_of(t, 1.0)));
  for (Tensor g : grads) g.mul_(clamped.to(g.dtype()));
  return total;
}

int64_t distinct_bytes(const std::vector<Tensor>& tensors) {
  std::set<const void*> seen;
  int64_t bytes = 0;
  for (const Tensor& t : tensors) {
    if (!t.defined() || !seen.insert(t.impl()).second) continue;
    bytes += t.numel() * static_cast<int64_t>(dtype_size(t.dtype()));
  }
  return bytes;
}

}  // namespace lazax::nn
