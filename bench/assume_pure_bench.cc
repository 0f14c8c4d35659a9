// `lazax bench assume-pure`: see assume_pure_bench.h.
#include "assume_pure_bench.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <numeric>
#include <sstream>
#include <vector>

#include "lazax/api/random.h"
#include "lazax/autodiff/pure.h"
#include "lazax/core/metrics.h"
#include "lazax/nn/llama.h"
#include "lazax/optim/sgd.h"
#include "lazax/runtime/context.h"
#include "subprocess.h"

namespace lazax::bench {
namespace {

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// The two syncs of a step, apart by name for profilers (callgrind --toggle-collect, perf's
// --parent). Each counts its calls in its own variable: that keeps the two from being folded
// into one function and the sync call from becoming a tail call (gone from call chains).
volatile int64_t g_step_syncs = 0, g_optimizer_syncs = 0;
[[gnu::noinline]] void step_sync() {
  lazax::sync();
  g_step_syncs = g_step_syncs + 1;
}
[[gnu::noinline]] void optimizer_sync() {
  lazax::sync();
  g_optimizer_syncs = g_optimizer_syncs + 1;
}

int64_t counter(const char* name) { return metrics::counter(name).get(); }
int64_t execute_ns() { return metrics::timer("ExecuteTime").total_ns.load(); }

// The timed loops run on the null backend; the previous backend comes back afterwards (its
// compile cache is cleared either way).
class NullBackendScope {
 public:
  NullBackendScope() : saved_(Context::get().backend().name()) {
    lazax::sync();  // nothing pending may be left for the null backend to "compute"
    Context::get().set_backend("null");
  }
  ~NullBackendScope() { Context::get().set_backend(saved_); }
  NullBackendScope(const NullBackendScope&) = delete;
  NullBackendScope& operator=(const NullBackendScope&) = delete;

 private:
  std::string saved_;
};

// Deterministic tokens [batch, seq + 1] that change every step (the values do not matter to the
// host cost); the model predicts tokens[:, 1:] from tokens[:, :-1].
Tensor make_tokens(const nn::LlamaConfig& c, int step) {
  std::vector<int64_t> tok;
  for (int64_t i = 0; i < c.batch * (c.seq + 1); ++i)
    tok.push_back((int64_t{step} * 7 + i * 13) % c.vocab);
  return from_vector<int64_t>(tok, {c.batch, c.seq + 1});
}

// The bench's own sizes: vocab 256, dim 128, 4 heads, SwiGLU hidden 256, sequence 8, batch 2.
nn::LlamaConfig bench_config(int64_t layers) {
  nn::LlamaConfig c;
  c.vocab = 256;
  c.dim = 128;
  c.n_layers = layers;
  c.n_heads = 4;
  c.hidden = 256;
  c.seq = 8;
  c.batch = 2;
  return c;
}

// Every mode starts from the same weights.
nn::Llama bench_model(int64_t layers) {
  manual_seed(1234);
  return nn::Llama(bench_config(layers));
}

// The "2x ops" body: a layer's block applied twice (same weights), as one assume_pure call.
struct TwiceBlock {
  Tensor operator()(const nn::TransformerBlock& b, const Tensor& h) const {
    return b.forward(b.forward(h));
  }
};

// How a mode runs the layers: Llama's own lazy or assume_pure modes, or each block twice inside
// one assume_pure call per layer.
enum class Layers { lazy, assume_pure, twice_pure };

// One mode's model and figures; steps run in several rounds, interleaved with the other modes.
class ModeRun {
 public:
  ModeRun(std::string name, int64_t layers, Layers how)
      : model_(bench_model(layers)),
        how_(how),
        sgd_(model_.named_parameters(), optim::SGDOptions{.lr = 1e-3}),
        twice_(assume_pure(TwiceBlock{}, PureOptions{"llama_block_twice"})) {
    r_.name = std::move(name);
  }
  ModeRun(const ModeRun&) = delete;
  ModeRun& operator=(const ModeRun&) = delete;

  // Runs `n` training steps; the figures of timed steps count, the others are warm-up.
  void run(int n, bool timed) {
    for (int i = 0; i < n && !skipped_; ++i) step(timed);
  }
  void skip() { skipped_ = true; }

  ModeResult result() const {
    ModeResult r = r_;
    r.host_ms = median(host_);
    r.host_ms_mean = mean(host_);
    r.forward_ms = median(fwd_);
    r.backward_ms = median(bwd_);
    r.sync_ms = median(sync_);
    r.optimizer_ms = median(opt_);
    r.optimizer_ms_mean = mean(opt_);
    r.execute_ms_mean = mean(exe_);
    r.ops_recorded = median(ops_);
    r.synced_nodes = median(nodes_);
    return r;
  }

 private:
  // Mean next-token cross entropy: Llama::forward, or its pieces with each block applied twice.
  Tensor loss(const Tensor& tokens) {
    if (how_ == Layers::lazy) return model_.forward(tokens, nn::LayerMode::lazy);
    if (how_ == Layers::assume_pure) return model_.forward(tokens, nn::LayerMode::assume_pure);
    int64_t b = tokens.size(0), t = tokens.size(1) - 1;
    Tensor h = model_.tok_embeddings(tokens.slice(1, 0, t));
    for (const nn::TransformerBlock& block : model_.layers) h = twice_(block, h);
    Tensor logits = model_.output(model_.norm(h));
    return cross_entropy(logits.reshape({b * t, model_.config().vocab}),
                         tokens.slice(1, 1, t + 1).reshape({b * t}));
  }

  void step(bool timed) {
    Tensor tokens = make_tokens(model_.config(), step_++);
    int64_t misses0 = counter("UncachedCompile"), cached0 = counter("CachedCompile"),
            traces0 = counter("PureTraces"), cuts0 = counter("GraphSizeCuts");
    int64_t ops0 = counter("OpsRecorded"), nodes0 = counter("SyncedNodes");
    int64_t t0 = thread_cpu_ns(), t1, t2, e0, e1;
    {
      Tensor l = loss(tokens);
      t1 = thread_cpu_ns();
      l.backward();
      t2 = thread_cpu_ns();
      e0 = execute_ns();
      step_sync();
      e1 = execute_ns();
    }  // the step's tape dies here (timed with the sync)
    int64_t t3 = thread_cpu_ns();
    int64_t ops1 = counter("OpsRecorded"), nodes1 = counter("SyncedNodes");

    int64_t t4 = thread_cpu_ns();
    sgd_.step();
    sgd_.zero_grad();
    int64_t e2 = execute_ns();
    optimizer_sync();
    int64_t e3 = execute_ns();
    int64_t t5 = thread_cpu_ns();

    int64_t misses = counter("UncachedCompile") - misses0;
    int64_t traces = counter("PureTraces") - traces0;
    if (!timed) {
      r_.warmup_compile_misses += misses;
      r_.warmup_pure_traces += traces;
      return;
    }
    r_.compile_misses += misses;
    r_.pure_traces += traces;
    r_.cached_compiles += counter("CachedCompile") - cached0;
    r_.size_cuts += counter("GraphSizeCuts") - cuts0;
    double sync_ms = std::max(0.0, ms(t3 - t2) - ms(e1 - e0));
    fwd_.push_back(ms(t1 - t0));
    bwd_.push_back(ms(t2 - t1));
    sync_.push_back(sync_ms);
    host_.push_back(ms(t2 - t0) + sync_ms);
    opt_.push_back(std::max(0.0, ms(t5 - t4) - ms(e3 - e2)));
    exe_.push_back(ms(e1 - e0) + ms(e3 - e2));
    ops_.push_back(static_cast<double>(ops1 - ops0));
    nodes_.push_back(static_cast<double>(nodes1 - nodes0));
  }

  nn::Llama model_;
  Layers how_;
  optim::SGD sgd_;
  PureFunction<TwiceBlock> twice_;
  int step_ = 0;
  bool skipped_ = false;
  ModeResult r_;
  std::vector<double> host_, fwd_, bwd_, sync_, opt_, exe_, ops_, nodes_;
};

// --- the torch._lazy peer: a Python script run as a subprocess (bench/subprocess.h) ---

std::optional<double> number(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

// The torch._lazy peer (bench/torch_lazy_decoder.py --serve), taking turns with lazax's modes:
// started and warmed up first, then asked for a few timed steps after each round of lazax's.
class TorchLazyPeer {
 public:
  TorchLazyPeer(int64_t layers, int warmup) {
    const std::string python = LAZAX_BENCH_PYTHON;
    const std::string script = LAZAX_TORCH_LAZY_DECODER_SCRIPT;
    if (::access(python.c_str(), X_OK) != 0) {
      detail_ = python + " not found";
      return;
    }
    auto [code, out] = run_command(shell_quote(python) + " -c 'import torch._lazy.ts_backend'");
    if (code != 0) {
      detail_ = python + " cannot import torch._lazy (Debian: python3-torch): " + last_line(out);
      return;
    }
    peer_ = std::make_unique<PeerProcess>(
        std::vector<std::string>{python, script, "--serve", "--layers", std::to_string(layers),
                                 "--warmup", std::to_string(warmup)});
    if (peer_->running())
      expect("ready");
    else
      fail("cannot start " + python + " " + script);
  }

  bool ok() const { return peer_ && detail_.empty(); }

  // `n` timed steps (none when the peer has failed).
  void run(int n) {
    if (!ok() || n <= 0) return;
    if (!peer_->send("run " + std::to_string(n))) return fail("the script ended early");
    expect("ran");
  }

  TorchLazyResult finish() {
    TorchLazyResult r;
    if (!ok()) {
      r.detail = detail_;
      return r;
    }
    peer_->send("done");
    std::optional<std::string> line = peer_->read_json_line();
    int code = peer_->finish();
    nlohmann::json j =
        line ? nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false) : nlohmann::json();
    if (code != 0 || !j.is_object() || !number(j, "host_ms_per_step")) {
      r.detail = "torch_lazy_decoder.py failed (exit " + std::to_string(code) +
                 ") or printed no figure: " + peer_->last_output();
      return r;
    }
    r.host_ms = number(j, "host_ms_per_step");
    r.mark_step_ms = number(j, "mark_step_ms_per_step");
    r.optimizer_ms = number(j, "optimizer_ms_per_step");
    for (const char* k : {"host_ms_per_step", "mark_step_ms_per_step", "optimizer_ms_per_step"})
      j.erase(k);
    r.detail = j.dump();
    return r;
  }

 private:
  // Reads the peer's answer, which must be an object with `key`.
  void expect(const char* key) {
    std::optional<std::string> line = peer_->read_json_line();
    nlohmann::json j = line ? nlohmann::json::parse(*line, nullptr, false) : nlohmann::json();
    if (!j.is_object() || !j.contains(key))
      fail("torch_lazy_decoder.py did not answer '" + std::string(key) +
           "': " + peer_->last_output());
  }
  void fail(const std::string& why) {
    if (detail_.empty()) detail_ = why;
    if (peer_) peer_->finish();
  }

  std::unique_ptr<PeerProcess> peer_;
  std::string detail_;  // why the peer is absent or failed; empty while it works
};

}  // namespace

double AssumePureBenchResult::lazy_over_pure() const {
  return pure.host_ms > 0 ? lazy.host_ms / pure.host_ms : 0;
}
double AssumePureBenchResult::double_ops_over_pure() const {
  return pure.host_ms > 0 ? pure_double.host_ms / pure.host_ms : 0;
}
std::optional<double> AssumePureBenchResult::torch_lazy_over_lazy() const {
  if (!torch_lazy.host_ms || lazy.host_ms <= 0) return std::nullopt;
  return *torch_lazy.host_ms / lazy.host_ms;
}
bool AssumePureBenchResult::meets_modes_target() const { return lazy_over_pure() >= kModesTarget; }
bool AssumePureBenchResult::meets_flat_target() const {
  return std::abs(double_ops_over_pure() - 1.0) <= kFlatTarget;
}
std::optional<bool> AssumePureBenchResult::meets_torch_lazy_target() const {
  auto v = torch_lazy_over_lazy();
  if (!v) return std::nullopt;
  return *v >= kTorchLazyTarget;
}

AssumePureBenchResult run_assume_pure_bench(const AssumePureBenchOptions& options) {
  AssumePureBenchResult r;
  r.options = options;
  r.options.layers = std::max<int64_t>(1, options.layers);
  r.options.steps = std::max(1, options.steps);
  r.options.warmup = std::max(1, options.warmup);
  r.options.rounds = std::clamp(options.rounds, 1, r.options.steps);
  const AssumePureBenchOptions& o = r.options;
  {
    NullBackendScope null_backend;
    std::vector<std::unique_ptr<ModeRun>> modes;
    modes.push_back(std::make_unique<ModeRun>("lazy", o.layers, Layers::lazy));
    modes.push_back(std::make_unique<ModeRun>("assume_pure", o.layers, Layers::assume_pure));
    modes.push_back(std::make_unique<ModeRun>("assume_pure, 2x ops", o.layers, Layers::twice_pure));
    if (!o.only.empty()) {
      static const char* const kNames[] = {"lazy", "assume_pure", "double"};
      auto at = std::find(std::begin(kNames), std::end(kNames), o.only);
      if (at == std::end(kNames))
        throw ValueError("[bench assume-pure] --only takes lazy, assume_pure or double, got '" +
                         o.only + "'");
      for (size_t i = 0; i < modes.size(); ++i)
        if (i != static_cast<size_t>(at - std::begin(kNames))) modes[i]->skip();
    }
    // The peer first (its warm-up compiles for seconds), so that nothing runs beside the loops.
    std::optional<TorchLazyPeer> torch_peer;
    if (o.peers) torch_peer.emplace(o.layers, std::max(1, o.torch_warmup));
    for (auto& m : modes) m->run(o.warmup, false);
    // Rounds of steps, mode after mode and then the peer's, so that a change in the machine's
    // load while the benchmark runs falls on all of them alike.
    for (int round = 0; round < o.rounds; ++round) {
      int n = o.steps / o.rounds + (round < o.steps % o.rounds ? 1 : 0);
      for (auto& m : modes) m->run(n, true);
      int torch_steps = std::max(1, o.torch_steps);
      if (torch_peer)
        torch_peer->run(torch_steps / o.rounds + (round < torch_steps % o.rounds ? 1 : 0));
    }
    r.lazy = modes[0]->result();
    r.pure = modes[1]->result();
    r.pure_double = modes[2]->result();
    if (torch_peer)
      r.torch_lazy = torch_peer->finish();
    else
      r.torch_lazy.detail = "not measured (--no-peers)";
  }
  return r;
}

nlohmann::json to_json(const AssumePureBenchResult& r) {
  auto opt = [](const std::optional<double>& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  auto mode = [](const ModeResult& m) {
    nlohmann::json j;
    j["host_ms_median"] = m.host_ms;
    j["host_ms_mean"] = m.host_ms_mean;
    j["forward_ms"] = m.forward_ms;
    j["backward_ms"] = m.backward_ms;
    j["sync_ms"] = m.sync_ms;
    j["optimizer_ms_median"] = m.optimizer_ms;
    j["optimizer_ms_mean"] = m.optimizer_ms_mean;
    j["null_execute_ms_mean"] = m.execute_ms_mean;
    j["ops_recorded_per_step"] = m.ops_recorded;
    j["synced_nodes_per_step"] = m.synced_nodes;
    j["compile_misses"] = m.compile_misses;
    j["cached_compiles"] = m.cached_compiles;
    j["pure_traces"] = m.pure_traces;
    j["warmup_compile_misses"] = m.warmup_compile_misses;
    j["warmup_pure_traces"] = m.warmup_pure_traces;
    j["size_cuts"] = m.size_cuts;
    return j;
  };
  auto tl = r.torch_lazy_over_lazy();
  auto tl_ok = r.meets_torch_lazy_target();
  nlohmann::json j;
  j["lazy_host_ms_per_step"] = r.lazy.host_ms;
  j["assume_pure_host_ms_per_step"] = r.pure.host_ms;
  j["assume_pure_host_ms_per_step_double_ops"] = r.pure_double.host_ms;
  j["torch_lazy_host_ms_per_step"] = opt(r.torch_lazy.host_ms);
  j["optimizer_host_ms_per_step"] = r.lazy.optimizer_ms;
  j["lazy_over_assume_pure"] = r.lazy_over_pure();
  j["double_ops_over_assume_pure"] = r.double_ops_over_pure();
  j["torch_lazy_over_lazy"] = opt(tl);
  j["meets_modes_target"] = r.meets_modes_target();
  j["meets_flat_target"] = r.meets_flat_target();
  j["meets_torch_lazy_target"] = tl_ok ? nlohmann::json(*tl_ok) : nlohmann::json(nullptr);
  j["torch_lazy_mark_step_ms_per_step"] = opt(r.torch_lazy.mark_step_ms);
  j["torch_lazy_optimizer_ms_per_step"] = opt(r.torch_lazy.optimizer_ms);
  // The script's settings as the JSON object it printed, or the text saying why it is absent.
  nlohmann::json detail = nlohmann::json::parse(r.torch_lazy.detail, nullptr, false);
  j["torch_lazy_detail"] = detail.is_object() ? detail : nlohmann::json(r.torch_lazy.detail);
  j["modes"] = {{"lazy", mode(r.lazy)},
                {"assume_pure", mode(r.pure)},
                {"assume_pure_double_ops", mode(r.pure_double)}};
  j["layers"] = r.options.layers;
  j["steps"] = r.options.steps;
  j["warmup_steps"] = r.options.warmup;
  j["rounds"] = r.options.rounds;
  j["clock"] = "thread_cpu";
  j["statistic"] = "median";
  j["backend"] = "null";
  return j;
}

std::string to_table(const AssumePureBenchResult& r) {
  char line[320];
  std::ostringstream os;
  const auto& o = r.options;
  os << "lazax bench assume-pure: " << o.layers
     << "-layer nn::Llama (dim 128, 4 heads, hidden 256, vocab 256, batch 2, seq 8), " << o.steps
     << " steps (in " << o.rounds << " rounds, the modes taking turns) after " << o.warmup
     << " warm-up steps;\n  host ms per step, thread CPU time, medians; execution excluded (null "
        "backend)\n";
  std::snprintf(line, sizeof line, "  %-22s %9s %9s %9s %9s %9s %9s %8s %7s\n", "mode", "host",
                "mean", "forward", "backward", "sync", "optimizer", "ops/step", "misses");
  os << line;
  for (const ModeResult* m : {&r.lazy, &r.pure, &r.pure_double}) {
    std::snprintf(line, sizeof line, "  %-22s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8.0f %7lld\n",
                  m->name.c_str(), m->host_ms, m->host_ms_mean, m->forward_ms, m->backward_ms,
                  m->sync_ms, m->optimizer_ms, m->ops_recorded,
                  static_cast<long long>(m->compile_misses));
    os << line;
  }
  std::snprintf(line, sizeof line,
                "  %-22s %9.3f          (optim::SGD step + its sync, all %zu parameters; "
                "lazy mode's median)\n",
                "optimizer", r.lazy.optimizer_ms, static_cast<size_t>(o.layers * 9 + 3));
  os << line;
  if (r.torch_lazy.host_ms) {
    std::snprintf(line, sizeof line,
                  "  %-22s %9.3f          (forward + backward tracing; mark_step %.1f ms and "
                  "optimizer %.1f ms apart)\n",
                  "torch._lazy", *r.torch_lazy.host_ms, r.torch_lazy.mark_step_ms.value_or(NAN),
                  r.torch_lazy.optimizer_ms.value_or(NAN));
  } else {
    std::snprintf(line, sizeof line, "  %-22s %9s          %s\n", "torch._lazy", "-",
                  r.torch_lazy.detail.c_str());
  }
  os << line;
  auto target = [&](const char* name, std::optional<double> v, std::optional<bool> ok,
                    const char* want) {
    if (!v) {
      std::snprintf(line, sizeof line, "  %-22s %9s          target %s: peer absent\n", name, "-",
                    want);
    } else {
      std::snprintf(line, sizeof line, "  %-22s %9.2f          target %s: %s\n", name, *v, want,
                    *ok ? "met" : "NOT met");
    }
    os << line;
  };
  target("lazy / assume_pure", r.lazy_over_pure(), r.meets_modes_target(), ">= 20");
  target("2x ops / assume_pure", r.double_ops_over_pure(), r.meets_flat_target(),
         "within 1 +- 0.2");
  target("torch._lazy / lazy", r.torch_lazy_over_lazy(), r.meets_torch_lazy_target(), ">= 20");
  for (const ModeResult* m : {&r.lazy, &r.pure, &r.pure_double}) {
    if (m->compile_misses || m->pure_traces || m->size_cuts) {
      os << "  warning: " << m->name << ": " << m->compile_misses << " compile misses, "
         << m->pure_traces << " traces and " << m->size_cuts
         << " graph-size cuts after warm-up (want 0)\n";
    }
  }
  if (r.torch_lazy.host_ms) os << "  torch._lazy: " << r.torch_lazy.detail << "\n";
  return os.str();
}

}  // namespace lazax::bench
