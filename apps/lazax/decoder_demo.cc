// The second half of `lazax demo --example`: a small nn::Llama (lazax/nn/llama.h) trained with
// optim::SGD for a few steps on the bytes of examples/tiny_corpus.txt, in plain lazy mode and
// with assume_pure over its layers, showing host time per step, the metrics report, the traced
// layer program and a ConcretizationError from a data-dependent branch.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "lazax/api/random.h"
#include "lazax/autodiff/pure.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/printer.h"
#include "lazax/nn/llama.h"
#include "lazax/optim/sgd.h"
#include "lazax/runtime/metrics_report.h"

namespace lazax::cli {
namespace {

// Consecutive windows of seq + 1 corpus bytes: the model predicts each byte from those before.
Tensor make_tokens(const std::string& text, const nn::LlamaConfig& c, int64_t step) {
  std::vector<int64_t> tok;
  int64_t n = static_cast<int64_t>(text.size()) - c.seq - 1;
  for (int64_t b = 0; b < c.batch; ++b) {
    int64_t start = ((step * c.batch + b) * 37) % n;
    for (int64_t t = 0; t <= c.seq; ++t)
      tok.push_back(static_cast<unsigned char>(text[static_cast<size_t>(start + t)]));
  }
  return from_vector<int64_t>(tok, {c.batch, c.seq + 1});
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int64_t execute_ns() { return metrics::timers()["ExecuteTime"].first; }

// Trains `steps` steps; returns the mean host ms per step (wall time minus execution).
double train(const nn::Llama& model, nn::LayerMode mode, const std::string& text, int steps) {
  optim::SGD sgd(model.named_parameters(), optim::SGDOptions{.lr = 0.05});
  const std::string label = to_string(mode);
  double host_total = 0;
  for (int s = 0; s < steps; ++s) {
    Tensor tokens = make_tokens(text, model.config(), s);
    auto t0 = std::chrono::steady_clock::now();
    int64_t e0 = execute_ns();
    Tensor loss = model.forward(tokens, mode);
    loss.backward();
    sgd.step();
    sgd.zero_grad();
    lazax::sync();
    double host = ms_since(t0) - static_cast<double>(execute_ns() - e0) / 1e6;
    host_total += host;
    std::printf("  [%s] step %d  loss %.4f  host %.2f ms\n", label.c_str(), s, loss.item(), host);
  }
  return host_total / steps;
}

}  // namespace

void decoder_demo() {
  std::ifstream in(std::string(LAZAX_SOURCE_DIR) + "/examples/tiny_corpus.txt");
  if (!in) throw IOError("[demo] cannot open examples/tiny_corpus.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();

  nn::LlamaConfig c;
  c.vocab = 256;
  c.dim = 32;
  c.n_heads = 2;
  c.hidden = 64;
  c.n_layers = 2;
  c.seq = 8;
  c.batch = 2;
  const int steps = 4;
  std::printf("\n== nn::Llama (%lld layers, dim %lld, byte vocab) on %zu bytes ==\n",
              static_cast<long long>(c.n_layers), static_cast<long long>(c.dim), text.size());

  metrics::reset();
  manual_seed(42);
  nn::Llama lazy_model(c);
  std::printf("\nplain lazy mode: every op of every layer is recorded each step\n");
  double lazy_ms = train(lazy_model, nn::LayerMode::lazy, text, steps);

  manual_seed(42);
  nn::Llama pure_model(c);
  std::printf("\nassume_pure over each layer: traced once, then one call node per layer\n");
  double pure_ms = train(pure_model, nn::LayerMode::assume_pure, text, steps);
  std::printf(
      "\nmean host time per step (recording + sync, execution excluded): lazy %.2f ms, "
      "assume_pure %.2f ms (the first step of each includes tracing and compiling)\n",
      lazy_ms, pure_ms);

  std::printf("\n%s", metrics::report().c_str());

  // One layer's program, as Llama's assume_pure block traces it: a pure function of the block's
  // parameters and the hidden state.
  FunctionPtr prog = trace(
      [](const nn::TransformerBlock& b, const Tensor& h) { return b.forward(h); },
      pure_model.layers[0], Tensor(Literal::zeros({DType::f32, Shape({c.batch, c.seq, c.dim})})));
  if (prog) {
    std::string ir = print_program(*prog, PrintOptions{false});
    std::printf("\nthe traced layer program (%lld nodes), as IR text:\n%s",
                static_cast<long long>(prog->total_nodes()), ir.c_str());
  }

  std::printf("\na data-dependent branch inside a pure function:\n");
  auto branchy = assume_pure(
      [](const Tensor& h) {
        if (h.sum().item() > 0) return h * 2.0;
        return h;
      },
      PureOptions{"branchy"});
  try {
    branchy(ones({2}));
  } catch (const ConcretizationError& e) {
    std::printf("  caught ConcretizationError:\n  %s\n", e.what());
  }
}

}  // namespace lazax::cli
