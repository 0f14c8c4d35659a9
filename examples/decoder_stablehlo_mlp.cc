// A one-layer decoder (byte embedding, RMS norms, causal self-attention, a SwiGLU MLP, an output
// head) whose MLP block is a StableHLO program exported from JAX (mlp_block.mlir), the way
// PyTorch/XLA's call_jax calls a JAX function: load_stablehlo makes it a pure function, traced
// once per signature and recorded as one `call` node per use. It trains with value_and_grad on
// the bytes of tiny_corpus.txt; the gradients of the block's weights come from lazax's own rules
// on the imported primitives. The same decoder with the MLP written in lazax ops trains from the
// same start beside it: the program checks that both give the same gradients and losses, that
// the block was traced once, and that the loss fell.
//
//   decoder_stablehlo_mlp EXAMPLES_DIR   (the folder with mlp_block.mlir and tiny_corpus.txt)
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "lazax/lazax.h"

using namespace lazax;

constexpr int64_t kVocab = 128, kDim = 16, kHidden = 32, kSeq = 32;  // mlp_block.mlir's shapes

struct Params {
  Tensor embed, wq, wk, wv, wo, w_gate, w_up, w_down, head;
  LAZAX_TREE_FIELDS(embed, wq, wk, wv, wo, w_gate, w_up, w_down, head)
};

Params init_params() {
  manual_seed(0);
  auto w = [](int64_t in, int64_t out) { return randn({in, out}) * (1.0 / std::sqrt(in)); };
  return {randn({kVocab, kDim}) * 0.5,
          w(kDim, kDim),
          w(kDim, kDim),
          w(kDim, kDim),
          w(kDim, kDim),
          w(kDim, kHidden),
          w(kDim, kHidden),
          w(kHidden, kDim),
          w(kDim, kVocab)};
}

Tensor rms_norm(const Tensor& x) { return x * rsqrt(mean(x * x, {-1}, true) + 1e-5); }

using Mlp = std::function<Tensor(const Tensor& h, const Params& p)>;

// Mean next-byte cross entropy of one window: ids and targets are i64 [kSeq].
Tensor loss_fn(const Params& p, const Tensor& ids, const Tensor& targets, const Mlp& mlp) {
  Tensor x = embedding(p.embed, ids);  // [kSeq, kDim]
  Tensor h = rms_norm(x);
  Tensor q = matmul(h, p.wq), k = matmul(h, p.wk), v = matmul(h, p.wv);
  Tensor scores = where(tril_mask(kSeq, kSeq), matmul(q, k.t()) * (1.0 / std::sqrt(kDim)), -1e9);
  x = x + matmul(matmul(softmax(scores, -1), v), p.wo);
  x = x + mlp(rms_norm(x), p);
  return cross_entropy(matmul(rms_norm(x), p.head), targets);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: decoder_stablehlo_mlp EXAMPLES_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::ifstream in(dir + "/tiny_corpus.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() < 2 * kSeq) {
    std::fprintf(stderr, "decoder_stablehlo_mlp: cannot read %s/tiny_corpus.txt\n", dir.c_str());
    return 1;
  }
  std::vector<int64_t> bytes;
  for (char c : text) bytes.push_back(static_cast<unsigned char>(c) % kVocab);

  // The JAX-exported block: load_stablehlo checks every call's argument types against @main's.
  StableHloFunction block = load_stablehlo(dir + "/mlp_block.mlir");
  Mlp imported = [&](const Tensor& h, const Params& p) {
    return block({h, p.w_gate, p.w_up, p.w_down})[0];
  };
  Mlp native = [](const Tensor& h, const Params& p) {
    return matmul(silu(matmul(h, p.w_gate)) * matmul(h, p.w_up), p.w_down);
  };

  auto step_fn = [](const Mlp& mlp) {
    return value_and_grad([mlp](const Params& p, const Tensor& ids, const Tensor& targets) {
      return loss_fn(p, ids, targets, mlp);
    });
  };
  auto imported_step = step_fn(imported), native_step = step_fn(native);
  Params a = init_params(), b = init_params();
  const double lr = 0.5;
  const int steps = 400, avg = 20;  // `last`: the mean of the last 20 steps' losses
  double worst_loss = 0, worst_grad = 0, first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    size_t start = (static_cast<size_t>(step) * 37) % (bytes.size() - kSeq - 1);
    std::vector<int64_t> window(bytes.begin() + start, bytes.begin() + start + kSeq + 1);
    Tensor ids = from_vector<int64_t>({window.begin(), window.end() - 1}, {kSeq});
    Tensor targets = from_vector<int64_t>({window.begin() + 1, window.end()}, {kSeq});
    auto [loss_a, ga] = imported_step(a, ids, targets);
    auto [loss_b, gb] = native_step(b, ids, targets);
    if (step == 0) {  // the block's weight gradients, imported against native
      for (auto [x, y] :
           {std::pair{ga.w_gate, gb.w_gate}, {ga.w_up, gb.w_up}, {ga.w_down, gb.w_down}})
        worst_grad = std::fmax(worst_grad, (x - y).abs().max().item() / y.abs().max().item());
    }
    std::vector<Tensor> pa = tree_flatten(a), dga = tree_flatten(ga);
    std::vector<Tensor> pb = tree_flatten(b), dgb = tree_flatten(gb);
    for (size_t i = 0; i < pa.size(); ++i) {
      pa[i] = pa[i] - dga[i] * lr;
      pb[i] = pb[i] - dgb[i] * lr;
    }
    a = tree_unflatten(a, pa);
    b = tree_unflatten(b, pb);
    double la = loss_a.item(), lb = loss_b.item();
    worst_loss = std::fmax(worst_loss, std::fabs(la - lb) / std::fabs(lb));
    if (step == 0) first = la;
    if (step >= steps - avg) last += la / avg;
  }
  std::printf(
      "loss: first %.4f, last %d steps %.4f; imported vs lazax ops: gradients %.2g, losses %.2g "
      "(relative); block signatures traced: %zu\n",
      first, avg, last, worst_grad, worst_loss, block.cache_size());
  if (worst_grad > 1e-5 || worst_loss > 1e-4) {
    std::fprintf(stderr, "decoder_stablehlo_mlp: the imported block and lazax ops disagree\n");
    return 1;
  }
  if (block.cache_size() != 1) {
    std::fprintf(stderr, "decoder_stablehlo_mlp: the block was traced more than once\n");
    return 1;
  }
  if (!(last < 0.6 * first)) {  // from ln(128) = 4.85 to about 2 (bytes of English)
    std::fprintf(stderr, "decoder_stablehlo_mlp: the loss did not fall\n");
    return 1;
  }
  return 0;
}
