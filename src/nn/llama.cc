#include "lazax/nn/llama.h"

#include <cmath>

#include "lazax/autodiff/remat.h"
#include "lazax/core/error.h"
#include "lazax/nn/scan_layers.h"
#include "lazax/trace/scope.h"

namespace lazax::nn {

namespace {
void check_field(const char* name, int64_t v) {
  if (v <= 0)
    throw ValueError(std::string("[nn::LlamaConfig] ") + name + " must be positive, got " +
                     std::to_string(v));
}
}  // namespace

void LlamaConfig::validate() const {
  check_field("vocab", vocab);
  check_field("dim", dim);
  check_field("n_layers", n_layers);
  check_field("n_heads", n_heads);
  check_field("hidden", hidden);
  check_field("seq", seq);
  check_field("batch", batch);
  if (dim % n_heads != 0)
    throw ValueError("[nn::LlamaConfig] dim " + std::to_string(dim) +
                     " is not a multiple of n_heads " + std::to_string(n_heads));
  if (head_dim() % 2 != 0)
    throw ValueError("[nn::LlamaConfig] the head dimension dim/n_heads = " +
                     std::to_string(head_dim()) + " must be even for rotary embeddings");
  if (!(norm_eps > 0.0) || !(rope_theta > 0.0))
    throw ValueError("[nn::LlamaConfig] norm_eps and rope_theta must be positive");
}

LlamaConfig LlamaConfig::tiny() { return LlamaConfig{256, 256, 4, 8, 768, 128, 8}; }
LlamaConfig LlamaConfig::small() { return LlamaConfig{256, 512, 8, 8, 1536, 256, 8}; }
LlamaConfig LlamaConfig::preset(const std::string& name) {
  if (name == "tiny") return tiny();
  if (name == "small") return small();
  throw ValueError("[nn::LlamaConfig] unknown preset '" + name + "'; the presets are tiny, small");
}

LayerMode layer_mode_from_string(const std::string& s) {
  if (s == "lazy") return LayerMode::lazy;
  if (s == "assume_pure") return LayerMode::assume_pure;
  if (s == "scan") return LayerMode::scan;
  throw ValueError("[nn::LayerMode] unknown mode '" + s +
                   "'; the modes are lazy, assume_pure, scan");
}

std::string to_string(LayerMode m) {
  switch (m) {
    case LayerMode::lazy:
      return "lazy";
    case LayerMode::assume_pure:
      return "assume_pure";
    case LayerMode::scan:
      return "scan";
  }
  return "?";
}

Tensor apply_rotary(const Tensor& x, double theta) {
  if (x.dim() < 2 || x.size(-1) % 2 != 0)
    throw ShapeError("[nn::apply_rotary] expects x [..., T, head_dim] with an even head_dim, got " +
                     x.type_str());
  int64_t t = x.size(-2), hd = x.size(-1), half = hd / 2;
  std::vector<float> inv(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    inv[static_cast<size_t>(i)] = static_cast<float>(
        1.0 / std::pow(theta, static_cast<double>(2 * i) / static_cast<double>(hd)));
  }
  Tensor freqs = arange(0.0, static_cast<double>(t)).reshape({t, 1}) *
                 from_vector<float>(inv, {1, half});  // [T, half], f32
  Tensor angles = cat({freqs, freqs}, -1);            // [T, hd]
  Tensor c = cos(angles).to(x.dtype()), s = sin(angles).to(x.dtype());
  Tensor x1 = x.slice(-1, 0, half), x2 = x.slice(-1, half, hd);
  return x * c + cat({-x2, x1}, -1) * s;
}

Attention::Attention(int64_t dim, int64_t n_heads, double rope_theta)
    : wq(dim, dim, false),
      wk(dim, dim, false),
      wv(dim, dim, false),
      wo(dim, dim, false),
      n_heads(n_heads),
      rope_theta(rope_theta) {
  if (n_heads <= 0 || dim % n_heads != 0 || (dim / n_heads) % 2 != 0)
    throw ValueError("[nn::Attention] dim " + std::to_string(dim) + " must split into " +
                     std::to_string(n_heads) + " heads of an even dimension");
}

Tensor Attention::forward(const Tensor& x) const {
  int64_t d = wq.weight.size(1);
  if (x.dim() != 3 || x.size(2) != d)
    throw ShapeError("[nn::Attention] expects x [batch, seq, " + std::to_string(d) + "], got " +
                     x.type_str());
  // (A profiler scope names what is made here: profiles, and saved_residuals' lines.)
  ProfilerScope scope("attention");
  int64_t b = x.size(0), t = x.size(1), hd = d / n_heads;
  auto heads = [&](const Linear& w) {  // [b, t, d] -> [b, heads, t, hd]
    return w(x).reshape({b, t, n_heads, hd}).transpose(1, 2);
  };
  // (The names are for remat policies: llama.h lists them.)
  Tensor q = checkpoint_name(apply_rotary(heads(wq), rope_theta), "q");
  Tensor k = checkpoint_name(apply_rotary(heads(wk), rope_theta), "k");
  Tensor v = checkpoint_name(heads(wv), "v");
  Tensor scores = matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(hd)));
  scores = where(tril_mask(t, t), scores, -1e30);
  Tensor attn = matmul(softmax(scores, -1), v);  // [b, heads, t, hd]
  return checkpoint_name(wo(attn.transpose(1, 2).reshape({b, t, d})), "attn_out");
}

void Attention::visit(ModuleVisitor& v) {
  v.module("wq", wq);
  v.module("wk", wk);
  v.module("wv", wv);
  v.module("wo", wo);
  v.attribute("n_heads", static_cast<double>(n_heads));
  v.attribute("rope_theta", rope_theta);
}

FeedForward::FeedForward(int64_t dim, int64_t hidden)
    : w1(dim, hidden, false), w2(hidden, dim, false), w3(dim, hidden, false) {}

Tensor FeedForward::forward(const Tensor& x) const {
  ProfilerScope scope("feed_forward");
  return checkpoint_name(w2(checkpoint_name(silu(w1(x)) * w3(x), "mlp_hidden")), "mlp_out");
}

void FeedForward::visit(ModuleVisitor& v) {
  v.module("w1", w1);
  v.module("w2", w2);
  v.module("w3", w3);
}

TransformerBlock::TransformerBlock(const LlamaConfig& c)
    : attention_norm(c.dim, c.norm_eps),
      attention(c.dim, c.n_heads, c.rope_theta),
      ffn_norm(c.dim, c.norm_eps),
      feed_forward(c.dim, c.hidden) {}

Tensor TransformerBlock::forward(const Tensor& h_in) const {
  Tensor h = h_in + attention(attention_norm(h_in));
  return h + feed_forward(ffn_norm(h));
}

void TransformerBlock::visit(ModuleVisitor& v) {
  v.module("attention_norm", attention_norm);
  v.module("attention", attention);
  v.module("ffn_norm", ffn_norm);
  v.module("feed_forward", feed_forward);
}

namespace {
const LlamaConfig& validated(const LlamaConfig& c) {
  c.validate();
  return c;
}
std::vector<TransformerBlock> make_layers(const LlamaConfig& c) {
  std::vector<TransformerBlock> layers;
  layers.reserve(static_cast<size_t>(c.n_layers));
  for (int64_t i = 0; i < c.n_layers; ++i) layers.emplace_back(c);
  return layers;
}
}  // namespace

// (The members are initialized in registration order, so the random draws are in that order.)
Llama::Llama(const LlamaConfig& c)
    : tok_embeddings(validated(c).vocab, c.dim),
      layers(make_layers(c)),
      norm(c.dim, c.norm_eps),
      output(c.dim, c.vocab, false),
      config_(c),
      pure_block_(std::make_shared<PureFunction<RunBlock>>(
          assume_pure(RunBlock{}, PureOptions{"llama_block"}))) {
  lazax::sync();
}

void Llama::set_remat(std::shared_ptr<const RematPolicy> policy) {
  PureOptions opts;
  opts.name = "llama_block";
  opts.remat = policy;
  remat_ = std::move(policy);
  pure_block_ = std::make_shared<PureFunction<RunBlock>>(assume_pure(RunBlock{}, opts));
}

Tensor Llama::run_layers(const Tensor& h_in, LayerMode mode) const {
  if (layers_fn_) return layers_fn_(h_in, mode);
  switch (mode) {
    case LayerMode::scan:
      return scan_layers(layers, h_in, remat_);
    case LayerMode::assume_pure: {
      Tensor h = h_in;
      for (const TransformerBlock& b : layers) h = (*pure_block_)(b, h);
      return h;
    }
    case LayerMode::lazy:
      break;
  }
  Tensor h = h_in;
  for (const TransformerBlock& b : layers) h = b(h);
  return h;
}

Tensor Llama::compute_logits(const Tensor& tokens, LayerMode mode) const {
  if (tokens.dim() != 2 || !is_integer(tokens.dtype()))
    throw ShapeError("[nn::Llama] expects integer tokens [batch, seq], got " + tokens.type_str());
  Tensor h = run_layers(tok_embeddings(tokens), mode);
  return output(norm(h));
}

Tensor Llama::forward(const Tensor& tokens, LayerMode mode) const {
  if (tokens.dim() != 2 || !is_integer(tokens.dtype()) || tokens.size(1) < 2)
    throw ShapeError("[nn::Llama] expects integer tokens [batch, seq + 1] with seq >= 1, got " +
                     tokens.type_str());
  int64_t b = tokens.size(0), t = tokens.size(1) - 1;
  Tensor lg = compute_logits(tokens.slice(1, 0, t), mode);
  Tensor targets = tokens.slice(1, 1, t + 1);
  if (lg.dtype() == DType::bf16 || lg.dtype() == DType::f16) lg = lg.to(DType::f32);
  return cross_entropy(lg.reshape({b * t, config_.vocab}), targets.reshape({b * t}));
}

void Llama::visit(ModuleVisitor& v) {
  v.module("tok_embeddings", tok_embeddings);
  visit_list(v, "layers", layers);
  v.module("norm", norm);
  v.module("output", output);
}

}  // namespace lazax::nn
