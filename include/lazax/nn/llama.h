// The Llama-style decoder of issue 17, exactly (so that others can reproduce it): byte
// vocabulary, token embedding, N decoder layers `h = h + attention(attention_norm(h))`,
// `h = h + feed_forward(ffn_norm(h))`, a final RMSNorm and an untied output projection. The
// parameter names are those of the reference Llama code (safetensors keys):
//   tok_embeddings.weight, layers.{i}.attention_norm.weight,
//   layers.{i}.attention.w{q,k,v,o}.weight, layers.{i}.ffn_norm.weight,
//   layers.{i}.feed_forward.w{1,2,3}.weight, norm.weight, output.weight
// Each block names its natural activations with checkpoint_name (remat.h), for remat policies
// such as save_only_these_names (Llama::set_remat):
//   q, k     [B, heads, T, head_dim]  queries and keys after the rotary embedding
//   v        [B, heads, T, head_dim]  values
//   attn_out [B, T, dim]              the attention's output projection (before the residual add)
//   mlp_hidden [B, T, hidden]         silu(w1(x)) * w3(x), the input of w2
//   mlp_out  [B, T, dim]              the feed-forward's output (before the residual add)
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/remat.h"
#include "lazax/nn/layers.h"

namespace lazax::nn {

struct LlamaConfig {
  int64_t vocab = 256;
  int64_t dim = 256;
  int64_t n_layers = 4;
  int64_t n_heads = 8;
  int64_t hidden = 768;  // SwiGLU inner size
  int64_t seq = 128;     // training sequence length (the model takes any length)
  int64_t batch = 8;     // training batch size
  double norm_eps = 1e-5;
  double rope_theta = 10000.0;

  int64_t head_dim() const { return dim / n_heads; }
  // Throws a ValueError naming the bad field (non-positive sizes; dim not a multiple of heads;
  // an odd head dimension, which rotary embeddings cannot pair).
  void validate() const;
  // dim 256, 4 layers, 8 heads, hidden 768, seq 128, batch 8.
  static LlamaConfig tiny();
  // dim 512, 8 layers, 8 heads, hidden 1536, seq 256, batch 8.
  static LlamaConfig small();
  // "tiny" or "small"; anything else is a ValueError listing the presets.
  static LlamaConfig preset(const std::string& name);
};

// How the decoder layers run: plainly recorded, each layer as an assume_pure call (traced once,
// one call node per layer), or all layers as one scan over their stacked parameters.
enum class LayerMode { lazy, assume_pure, scan };
LayerMode layer_mode_from_string(const std::string& s);  // "lazy", "assume_pure", "scan"
std::string to_string(LayerMode m);

// Rotary position embedding in the rotate-half convention on x [..., T, head_dim]: dims i and
// i + head_dim/2 form pair i, rotated by angle t * theta^(-2i/head_dim) at position t.
Tensor apply_rotary(const Tensor& x, double theta);

// Causal multi-head self-attention with rotary embeddings; no biases; scores scaled by
// 1/sqrt(head_dim).
class Attention : public Module {
 public:
  Attention() = default;
  Attention(int64_t dim, int64_t n_heads, double rope_theta = 10000.0);
  Tensor forward(const Tensor& x) const;  // x [B, T, dim]
  Tensor operator()(const Tensor& x) const { return call_module(*this, x); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "Attention"; }

  Linear wq, wk, wv, wo;
  int64_t n_heads = 1;
  double rope_theta = 10000.0;
};

// SwiGLU: w2(silu(w1(x)) * w3(x)); no biases.
class FeedForward : public Module {
 public:
  FeedForward() = default;
  FeedForward(int64_t dim, int64_t hidden);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return call_module(*this, x); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "FeedForward"; }

  Linear w1, w2, w3;
};

// h = h + attention(attention_norm(h)); h = h + feed_forward(ffn_norm(h)).
class TransformerBlock : public Module {
 public:
  TransformerBlock() = default;
  explicit TransformerBlock(const LlamaConfig& c);
  Tensor forward(const Tensor& h) const;
  Tensor operator()(const Tensor& h) const { return call_module(*this, h); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "TransformerBlock"; }

  RMSNorm attention_norm;
  Attention attention;
  RMSNorm ffn_norm;
  FeedForward feed_forward;
};

class Llama : public Module {
 public:
  // Initializes as PyTorch's defaults (Linear uniform, Embedding N(0,1), norms ones) from the
  // default generator, and syncs so that the parameters are materialized.
  explicit Llama(const LlamaConfig& c);
  // Logits [B, T, vocab] of integer tokens [B, T], under the model's policy as a call is
  // (call_module_method).
  Tensor logits(const Tensor& tokens, LayerMode mode = LayerMode::lazy) const {
    return call_module_method(
        *this,
        [](const Llama& m, const Tensor& t, LayerMode md) { return m.compute_logits(t, md); },
        tokens, mode);
  }
  // The logits without the policy's converts (what forward computes its loss from).
  Tensor compute_logits(const Tensor& tokens, LayerMode mode = LayerMode::lazy) const;
  // Mean next-token cross entropy of tokens [B, T+1]: the logits of tokens[:, :-1] against
  // tokens[:, 1:]. The cross entropy runs in f32 when the logits are bf16 or f16 (under a bf16
  // policy: PyTorch autocast's fp32 list does the same).
  Tensor forward(const Tensor& tokens, LayerMode mode = LayerMode::lazy) const;
  // The call (forward under the model's precision policy, set_policy; docs/PRECISION.md).
  Tensor operator()(const Tensor& tokens, LayerMode mode = LayerMode::lazy) const {
    return call_module(*this, tokens, mode);
  }
  Tensor loss(const Tensor& tokens, LayerMode mode = LayerMode::lazy) const {
    return (*this)(tokens, mode);
  }
  // The decoder layers on h [B, T, dim], run the given way.
  Tensor run_layers(const Tensor& h, LayerMode mode) const;
  // Runs the decoder layers on h in place of run_layers, in any LayerMode. FSDP layer by layer
  // uses it to gather each layer's parameters inside the layer's call, or inside scan's body
  // (lazax train --shard full: apps/lazax/train_shard.cc). Null (the default): the layers run
  // on their own parameters.
  using LayersFn = std::function<Tensor(const Tensor& h, LayerMode mode)>;
  void set_layers_fn(LayersFn f) { layers_fn_ = std::move(f); }
  void visit(ModuleVisitor& v) override;
  std::string type_name() const override { return "Llama"; }
  const LlamaConfig& config() const { return config_; }
  // How many block signatures LayerMode::assume_pure has traced (1 once warm, whatever the
  // number of layers and steps).
  size_t traced_block_signatures() const { return pure_block_->cache_size(); }
  // LayerMode::assume_pure's blocks, and LayerMode::scan's body, split their forward and
  // backward by `policy` (remat.h: what each block's backward keeps; the rest it recomputes);
  // null: lazax's default split.
  void set_remat(std::shared_ptr<const RematPolicy> policy);
  const std::shared_ptr<const RematPolicy>& remat() const { return remat_; }
  // The traced block (LayerMode::assume_pure) for activations shaped like `h` (for inspection:
  // saved_residuals, the remat bench).
  std::shared_ptr<lazax::detail::PureEntry> block_entry(const Tensor& h) const {
    return pure_block_->entry(layers.at(0), h);
  }
  // What each block's backward keeps under the remat policy, one line per value, as
  // print_saved_residuals lists it (remat.h), for activations shaped like `h`.
  std::vector<std::string> block_saved_residuals(const Tensor& h) const {
    return saved_residuals(*pure_block_, layers.at(0), h);
  }

  Embedding tok_embeddings;
  std::vector<TransformerBlock> layers;
  RMSNorm norm;
  Linear output;

 private:
  struct RunBlock {
    Tensor operator()(const TransformerBlock& b, const Tensor& h) const { return b(h); }
  };
  LlamaConfig config_;
  std::shared_ptr<const RematPolicy> remat_;
  // Shared by copies of the model, so that the block is traced once.
  std::shared_ptr<PureFunction<RunBlock>> pure_block_;
  LayersFn layers_fn_;
};

}  // namespace lazax::nn
