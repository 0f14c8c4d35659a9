#include "decoder.h"

#include <cmath>

namespace lazax::models {

namespace {
Tensor param(const std::vector<int64_t>& shape, double scale) {
  Tensor t = randn(shape) * scale;
  return t;
}
}  // namespace

DecoderParams init_decoder(const DecoderConfig& c, uint64_t seed) {
  manual_seed(seed);
  DecoderParams p;
  double s = 1.0 / std::sqrt(static_cast<double>(c.hidden));
  p.embed = param({c.vocab, c.hidden}, 0.5);
  for (int64_t l = 0; l < c.layers; ++l) {
    LayerParams lp;
    lp.attn_norm = ones({c.hidden});
    lp.wq = param({c.hidden, c.hidden}, s);
    lp.wk = param({c.hidden, c.hidden}, s);
    lp.wv = param({c.hidden, c.hidden}, s);
    lp.wo = param({c.hidden, c.hidden}, s / std::sqrt(2.0 * static_cast<double>(c.layers)));
    lp.mlp_norm = ones({c.hidden});
    lp.w_gate = param({c.hidden, c.mlp}, s);
    lp.w_up = param({c.hidden, c.mlp}, s);
    lp.w_down = param({c.mlp, c.hidden}, 1.0 / std::sqrt(static_cast<double>(c.mlp) * 2.0 *
                                                         static_cast<double>(c.layers)));
    p.layers.push_back(lp);
  }
  p.final_norm = ones({c.hidden});
  p.head = param({c.hidden, c.vocab}, s);
  lazax::sync();
  for (Tensor& t : parameters(p)) t.requires_grad_();
  return p;
}

std::vector<Tensor> parameters(DecoderParams& p) { return tree_flatten(p); }

Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps) {
  Tensor ms = mean(x * x, {-1}, true);
  return x * rsqrt(ms + eps) * weight;
}

Tensor decoder_layer(const LayerParams& p, const Tensor& h_in, const DecoderConfig& c) {
  int64_t b = h_in.size(0), t = h_in.size(1), d = c.hidden, nh = c.heads, hd = d / nh;
  Tensor h = h_in;
  for (int rep = 0; rep < c.block_repeats; ++rep) {
    Tensor x = rms_norm(h, p.attn_norm);
    auto heads = [&](const Tensor& w) {  // [b, t, d] -> [b, nh, t, hd]
      return matmul(x, w).reshape({b, t, nh, hd}).permute({0, 2, 1, 3});
    };
    Tensor q = heads(p.wq), k = heads(p.wk), v = heads(p.wv);
    Tensor scores = matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(hd)));
    scores = where(tril_mask(t, t), scores, -1e9);
    Tensor attn = matmul(softmax(scores, -1), v);  // [b, nh, t, hd]
    Tensor merged = attn.permute({0, 2, 1, 3}).reshape({b, t, d});
    h = h + matmul(merged, p.wo);
    Tensor y = rms_norm(h, p.mlp_norm);
    Tensor mlp = matmul(silu(matmul(y, p.w_gate)) * matmul(y, p.w_up), p.w_down);
    h = h + mlp;
  }
  return h;
}

Tensor decoder_loss(const DecoderParams& p, const Tensor& tokens, const Tensor& targets,
                    const DecoderConfig& c, const LayerFn& layer) {
  Tensor h = embedding(p.embed, tokens);  // [b, t, d]
  for (size_t l = 0; l < p.layers.size(); ++l) h = layer(l, h);
  Tensor logits = matmul(rms_norm(h, p.final_norm), p.head);  // [b, t, vocab]
  int64_t n = tokens.numel();
  return cross_entropy(logits.reshape({n, c.vocab}), targets.reshape({n}));
}

void sgd_step(const std::vector<Tensor>& params, double lr) {
  NoGrad off;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    Tensor t = p;
    t.sub_(g * lr);
  }
  zero_grad(params);
}

}  // namespace lazax::models
