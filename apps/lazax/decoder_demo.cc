// The second half of `lazax demo`: a small decoder-style model trained for a few steps on the
// bytes of examples/tiny_corpus.txt, in plain lazy mode and with assume_pure over its layers,
// showing host time per step, the metrics report, the traced layer program and a
// ConcretizationError from a data-dependent branch.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "decoder.h"
#include "lazax/autodiff/pure.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/printer.h"
#include "lazax/runtime/metrics_report.h"

namespace lazax::cli {
namespace {

using models::DecoderConfig;
using models::LayerParams;

struct Batch {
  Tensor tokens, targets;
};

// Consecutive windows of the corpus bytes: tokens and the next byte as target.
Batch make_batch(const std::string& text, const DecoderConfig& c, int64_t step) {
  std::vector<int64_t> tok, tgt;
  int64_t n = static_cast<int64_t>(text.size()) - c.seq - 1;
  for (int64_t b = 0; b < c.batch; ++b) {
    int64_t start = ((step * c.batch + b) * 37) % n;
    for (int64_t t = 0; t < c.seq; ++t) {
      tok.push_back(static_cast<unsigned char>(text[static_cast<size_t>(start + t)]));
      tgt.push_back(static_cast<unsigned char>(text[static_cast<size_t>(start + t + 1)]));
    }
  }
  return {from_vector<int64_t>(tok, {c.batch, c.seq}), from_vector<int64_t>(tgt, {c.batch, c.seq})};
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int64_t execute_ns() { return metrics::timers()["ExecuteTime"].first; }

// Trains `steps` steps; returns the mean host ms per step (wall time minus execution).
double train(const char* label, models::DecoderParams& p, const DecoderConfig& c,
             const std::string& text, int steps, const models::LayerFn& layer) {
  std::vector<Tensor> params = models::parameters(p);
  double host_total = 0;
  for (int s = 0; s < steps; ++s) {
    Batch b = make_batch(text, c, s);
    auto t0 = std::chrono::steady_clock::now();
    int64_t e0 = execute_ns();
    Tensor loss = models::decoder_loss(p, b.tokens, b.targets, c, layer);
    loss.backward();
    models::sgd_step(params, 0.05);
    lazax::sync();
    double host = ms_since(t0) - static_cast<double>(execute_ns() - e0) / 1e6;
    host_total += host;
    std::printf("  [%s] step %d  loss %.4f  host %.2f ms\n", label, s, loss.item(), host);
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

  DecoderConfig c;
  c.vocab = 256;
  c.hidden = 32;
  c.heads = 2;
  c.mlp = 64;
  c.layers = 2;
  c.seq = 8;
  c.batch = 2;
  const int steps = 4;
  std::printf("\n== a decoder-style model (%lld layers, hidden %lld, byte vocab) on %zu bytes ==\n",
              static_cast<long long>(c.layers), static_cast<long long>(c.hidden), text.size());

  metrics::reset();
  models::DecoderParams lazy_params = models::init_decoder(c, 42);
  std::printf("\nplain lazy mode: every op of every layer is recorded each step\n");
  double lazy_ms = train("lazy", lazy_params, c, text, steps, [&](size_t l, const Tensor& h) {
    return models::decoder_layer(lazy_params.layers[l], h, c);
  });

  models::DecoderParams pure_params = models::init_decoder(c, 42);
  auto layer = assume_pure(
      [&](const LayerParams& lp, const Tensor& h) { return models::decoder_layer(lp, h, c); },
      PureOptions{"decoder_layer"});
  std::printf("\nassume_pure over each layer: traced once, then one call node per layer\n");
  double pure_ms =
      train("assume_pure", pure_params, c, text, steps,
            [&](size_t l, const Tensor& h) { return layer(pure_params.layers[l], h); });
  std::printf(
      "\nmean host time per step (recording + sync, execution excluded): lazy %.2f ms, "
      "assume_pure %.2f ms (the first step of each includes tracing and compiling)\n",
      lazy_ms, pure_ms);

  std::printf("\n%s", metrics::report().c_str());

  FunctionPtr prog =
      layer.program(pure_params.layers[0],
                    Tensor(Literal::zeros({DType::f32, Shape({c.batch, c.seq, c.hidden})})));
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
