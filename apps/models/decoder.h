// A small decoder-only (Llama-style) language model written with lazax tensor ops: token
// embedding, N layers of [RMSNorm -> causal multi-head attention -> residual -> RMSNorm ->
// SwiGLU MLP -> residual], a final RMSNorm and an output projection. Used by the demo, the
// training command and the benchmarks.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/tree.h"

namespace lazax::models {

struct DecoderConfig {
  int64_t vocab = 256;
  int64_t hidden = 128;
  int64_t heads = 4;
  int64_t mlp = 256;  // SwiGLU inner size
  int64_t layers = 4;
  int64_t seq = 8;
  int64_t batch = 2;
  int block_repeats = 1;  // >1 applies each layer's block several times (same weights): more ops
};

struct LayerParams {
  Tensor attn_norm, wq, wk, wv, wo, mlp_norm, w_gate, w_up, w_down;
  LAZAX_TREE_FIELDS(attn_norm, wq, wk, wv, wo, mlp_norm, w_gate, w_up, w_down)
};

struct DecoderParams {
  Tensor embed;  // [vocab, hidden]
  std::vector<LayerParams> layers;
  Tensor final_norm, head;  // [hidden], [hidden, vocab]
  LAZAX_TREE_FIELDS(embed, layers, final_norm, head)
};

// Random initialization (scaled normal), every parameter requires grad and is materialized.
DecoderParams init_decoder(const DecoderConfig& c, uint64_t seed);

Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps = 1e-5);
// One layer on h [batch, seq, hidden].
Tensor decoder_layer(const LayerParams& p, const Tensor& h, const DecoderConfig& c);

// Runs the layers through `layer` (plain decoder_layer, or an assume_pure wrapper of it).
using LayerFn = std::function<Tensor(size_t index, const Tensor& h)>;
// Mean next-token cross entropy of tokens [batch, seq] (i64) against targets [batch, seq].
Tensor decoder_loss(const DecoderParams& p, const Tensor& tokens, const Tensor& targets,
                    const DecoderConfig& c, const LayerFn& layer);

std::vector<Tensor> parameters(DecoderParams& p);

// Plain SGD: p -= lr * grad, inside NoGrad; clears the grads.
void sgd_step(const std::vector<Tensor>& params, double lr);

}  // namespace lazax::models
