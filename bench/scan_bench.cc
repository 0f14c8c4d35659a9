// `lazax bench scan` (scan_bench.h).
#include "scan_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "lazax/autodiff/function_ad.h"
#include "lazax/core/metrics.h"
#include "lazax/lazax.h"
#include "lazax/runtime/context.h"

namespace lazax::bench {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Step {
  double first_ms = 0;      // trace + compile + run
  double step_ms = 0;       // compiled
  metrics::Snapshot first;  // the first step's counters and timers
  std::vector<std::vector<float>> grads;
};

// Two training steps (forward, backward) of a fresh model, from empty program caches.
Step two_steps(const nn::LlamaConfig& c, nn::LayerMode mode) {
  lazax::sync();
  Context::get().cache().clear();
  autodiff::clear_program_caches();
  manual_seed(42);
  nn::Llama model(c);
  std::vector<Tensor> params = model.parameters();
  std::mt19937 rng(7);
  std::vector<int64_t> tok(static_cast<size_t>(c.batch * (c.seq + 1)));
  Step r;
  for (int s = 0; s < 2; ++s) {
    for (auto& t : tok) t = static_cast<int64_t>(rng() % 256);
    Tensor batch = from_vector<int64_t>(tok, {c.batch, c.seq + 1});
    lazax::sync();
    zero_grad(params);
    const metrics::Snapshot before = metrics::snapshot();
    auto t0 = std::chrono::steady_clock::now();
    model.forward(batch, mode).backward();
    lazax::sync();
    (s == 0 ? r.first_ms : r.step_ms) = ms_since(t0);
    if (s > 0) continue;
    r.first = metrics::snapshot() - before;
    r.grads.reserve(params.size());
    for (const Tensor& p : params) r.grads.push_back(p.grad().to_vector<float>());
  }
  return r;
}

double max_abs_diff(const std::vector<std::vector<float>>& a,
                    const std::vector<std::vector<float>>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; j < a[i].size(); ++j)
      m = std::max(m, std::fabs(static_cast<double>(a[i][j]) - static_cast<double>(b[i][j])));
  }
  return m;
}

// The first step less its run: recording, hashing and compiling.
double trace_compile_ms(const Step& s) { return s.first_ms - s.first.execute_ms; }

// Where the first step's time went: recording (tracing, the tape, building VJP programs:
// everything but the rest), hashing graphs at sync, compiling (passes and backend), running.
nlohmann::json breakdown(const Step& s) {
  const metrics::Snapshot& m = s.first;
  return {{"record_ms", s.first_ms - m.sync_hash_ms - m.compile_ms - m.execute_ms},
          {"vjp_build_ms", m.vjp_build_ms},
          {"sync_hash_ms", m.sync_hash_ms},
          {"compile_ms", m.compile_ms},
          {"execute_ms", m.execute_ms},
          {"ops_recorded", m.ops_recorded}};
}

}  // namespace

nlohmann::json run_scan_bench(const ScanBenchOptions& options) {
  nn::LlamaConfig c = nn::LlamaConfig::tiny();
  c.n_layers = options.layers;
  c.dim = options.dim;
  c.hidden = 3 * options.dim;
  c.n_heads = 4;
  c.batch = options.batch;
  c.seq = options.seq;
  c.validate();
  std::vector<double> unrolled_first, scan_first, unrolled_step, scan_step, unrolled_tc, scan_tc;
  double diff = 0;
  nlohmann::json unrolled_parts, scan_parts;
  // (One untimed round first: the process's own first-time costs, such as oneDNN generating its
  // kernels for these shapes and the first touch of buffer memory, are not lazax's compile.)
  two_steps(c, nn::LayerMode::lazy);
  two_steps(c, nn::LayerMode::scan);
  for (int rep = 0; rep < options.reps; ++rep) {
    Step u = two_steps(c, nn::LayerMode::lazy);
    Step s = two_steps(c, nn::LayerMode::scan);
    unrolled_first.push_back(u.first_ms);
    scan_first.push_back(s.first_ms);
    unrolled_step.push_back(u.step_ms);
    scan_step.push_back(s.step_ms);
    diff = std::max(diff, max_abs_diff(u.grads, s.grads));
    unrolled_tc.push_back(trace_compile_ms(u));
    scan_tc.push_back(trace_compile_ms(s));
    unrolled_parts = breakdown(u);  // (the last repetition's)
    scan_parts = breakdown(s);
  }
  const double unrolled = median(unrolled_first), scanned = median(scan_first);
  return {{"layers", c.n_layers},
          {"dim", c.dim},
          {"batch", c.batch},
          {"seq", c.seq},
          {"unrolled_compile_ms", unrolled},
          {"scan_compile_ms", scanned},
          {"compile_speedup", unrolled / scanned},
          {"unrolled_trace_compile_ms", median(unrolled_tc)},
          {"scan_trace_compile_ms", median(scan_tc)},
          {"trace_compile_speedup", median(unrolled_tc) / median(scan_tc)},
          {"unrolled_step_ms", median(unrolled_step)},
          {"scan_step_ms", median(scan_step)},
          {"max_grad_diff", diff},
          {"unrolled_first_step", unrolled_parts},
          {"scan_first_step", scan_parts}};
}

}  // namespace lazax::bench
