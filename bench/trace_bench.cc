// `lazax bench trace`: see trace_bench.h.
#include "trace_bench.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/graph.h"

namespace lazax::bench {
namespace {

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Tensor small_f32(const std::vector<int64_t>& shape, float v) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return from_vector<float>(std::vector<float>(static_cast<size_t>(n), v), shape);
}

// Raises the graph-size cut above what one chain records (restored on destruction), so that no
// sync happens inside a timed region; the cuts counter is still checked around each region.
class NoSizeCut {
 public:
  explicit NoSizeCut(int64_t nodes) : saved_(Context::get().options().max_pending_nodes) {
    int64_t& limit = Context::get().options().max_pending_nodes;
    limit = std::max(limit, live_graph_nodes() + nodes + 1024);
  }
  ~NoSizeCut() { Context::get().options().max_pending_nodes = saved_; }
  NoSizeCut(const NoSizeCut&) = delete;
  NoSizeCut& operator=(const NoSizeCut&) = delete;

 private:
  int64_t saved_;
};

metrics::Counter& size_cuts() { return metrics::counter("GraphSizeCuts"); }

// x = x + y on f32[16], `ops` times; returns thread CPU ns per op. The chain dies untimed.
double time_add_chain(int64_t ops, int64_t& cuts) {
  Tensor a = small_f32({16}, 1.0f), y = small_f32({16}, 0.5f);
  Tensor x = a;
  int64_t c0 = size_cuts().get();
  int64_t t0 = thread_cpu_ns();
  for (int64_t i = 0; i < ops; ++i) x = x + y;
  int64_t t1 = thread_cpu_ns();
  cuts += size_cuts().get() - c0;
  x = Tensor();
  return static_cast<double>(t1 - t0) / static_cast<double>(ops);
}

// A layer-like mix of small-tensor ops: matmul, softmax, broadcasts, host scalars, unary,
// compare/select.
constexpr int kMixedOpsPerStep = 12;
Tensor mixed_step(const Tensor& x, const Tensor& m, const Tensor& w, const Tensor& b) {
  Tensor h = matmul(x, m);         // f32[4,16] @ f32[16,16]
  h = h * w;                       // f32[4,16] * f32[16]: broadcast
  h = h + b;                       //
  h = tanh(h);                     //
  h = h * 0.5;                     // host scalar (a data leaf)
  h = where(h > 0.0, h, h * 0.1);  // compare with 0 (a constant), scalar mul, select
  h = softmax(h, -1);              //
  h = sigmoid(h);                  //
  h = h - x;                       //
  return relu(h);                  // the relu primitive: one node
}

// The mixed chain: returns thread CPU ns per op and graph nodes per op.
std::pair<double, double> time_mixed_chain(int64_t ops, int64_t& cuts) {
  Tensor x = small_f32({4, 16}, 0.25f), m = small_f32({16, 16}, 0.05f);
  Tensor w = small_f32({16}, 0.5f), b = small_f32({16}, 0.1f);
  int64_t steps = std::max<int64_t>(1, ops / kMixedOpsPerStep);
  int64_t n0 = live_graph_nodes(), c0 = size_cuts().get();
  int64_t t0 = thread_cpu_ns();
  for (int64_t i = 0; i < steps; ++i) x = mixed_step(x, m, w, b);
  int64_t t1 = thread_cpu_ns();
  int64_t nodes = live_graph_nodes() - n0;
  cuts += size_cuts().get() - c0;
  x = Tensor();
  double n_ops = static_cast<double>(steps * kMixedOpsPerStep);
  return {static_cast<double>(t1 - t0) / n_ops, static_cast<double>(nodes) / n_ops};
}

// An add chain of `ops` nodes whose program is already cached: the thread CPU ns per node of the
// walk + hash + cache lookup that sync does before executing (Context::probe, which runs
// nothing), then the same from the runtime's own SyncHashTime timer (wall clock, walk + hash)
// over a real sync. Counts probes that missed the cache.
std::pair<double, double> time_cached_sync(int64_t ops, int64_t& misses) {
  constexpr int kProbes = 5;
  metrics::Timer& hash_time = metrics::timer("SyncHashTime");
  metrics::Counter& synced = metrics::counter("SyncedNodes");
  Tensor x = small_f32({16}, 1.0f), y = small_f32({16}, 0.5f);
  for (int64_t i = 0; i < ops; ++i) x = x + y;
  int64_t nodes = 0;
  int64_t t0 = thread_cpu_ns();
  for (int i = 0; i < kProbes; ++i) {
    Context::Probe p = Context::get().probe();
    nodes += p.nodes;
    misses += p.cached ? 0 : 1;
  }
  int64_t t1 = thread_cpu_ns();
  int64_t h0 = hash_time.total_ns.load(), n0 = synced.get();
  lazax::sync();
  int64_t h1 = hash_time.total_ns.load(), n1 = synced.get();
  return {static_cast<double>(t1 - t0) / static_cast<double>(std::max<int64_t>(1, nodes)),
          static_cast<double>(h1 - h0) / static_cast<double>(std::max<int64_t>(1, n1 - n0))};
}

}  // namespace

std::optional<double> TraceBenchResult::record_over_libtorch() const {
  if (!libtorch.ns_per_op || *libtorch.ns_per_op <= 0) return std::nullopt;
  return record_ns_per_op / *libtorch.ns_per_op;
}

std::optional<double> TraceBenchResult::torch_lazy_over_record() const {
  if (!torch_lazy.ns_per_op || record_ns_per_op <= 0) return std::nullopt;
  return *torch_lazy.ns_per_op / record_ns_per_op;
}

TraceBenchResult run_trace_bench(const TraceBenchOptions& options) {
  TraceBenchResult r;
  r.options = options;
  int64_t ops = std::max<int64_t>(1, options.ops);
  int reps = std::max(1, options.reps);
  lazax::sync();  // start from an empty pending graph
  {
    NoSizeCut no_cut(8 * ops);  // the mixed chain records several nodes per op
    int64_t warm_cuts = 0;
    time_add_chain(ops, warm_cuts);
    std::vector<double> record, mixed, nodes;
    for (int i = 0; i < reps; ++i) record.push_back(time_add_chain(ops, r.size_cuts));
    time_mixed_chain(ops, warm_cuts);
    for (int i = 0; i < reps; ++i) {
      auto [ns, n] = time_mixed_chain(ops, r.size_cuts);
      mixed.push_back(ns);
      nodes.push_back(n);
    }
    r.record_ns_per_op = median(record);
    r.mixed_ns_per_op = median(mixed);
    r.mixed_nodes_per_op = median(nodes);

    int64_t warm_misses = 0;
    time_cached_sync(ops, warm_misses);  // compiles (and runs) the chain's graph once
    std::vector<double> probe, timer;
    for (int i = 0; i < reps; ++i) {
      auto [p, t] = time_cached_sync(ops, r.sync_cache_misses);
      probe.push_back(p);
      timer.push_back(t);
    }
    r.sync_ns_per_node = median(probe);
    r.sync_timer_ns_per_node = median(timer);
  }
  if (options.peers) {
    r.libtorch = measure_libtorch_eager_add(ops, reps);
    r.torch_lazy = measure_torch_lazy_add(ops, reps);
  } else {
    r.libtorch.detail = r.torch_lazy.detail = "not measured (--no-peers)";
  }
  return r;
}

namespace {
// A peer's detail: the JSON object it printed, or the text saying why it is absent.
nlohmann::json detail_json(const std::string& detail) {
  nlohmann::json j = nlohmann::json::parse(detail, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json(detail);
}
}  // namespace

nlohmann::json to_json(const TraceBenchResult& r) {
  auto opt = [](const std::optional<double>& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  auto meets = [](const std::optional<double>& v, bool ok) -> nlohmann::json {
    return v ? nlohmann::json(ok) : nlohmann::json(nullptr);
  };
  auto lt = r.record_over_libtorch();
  auto tl = r.torch_lazy_over_record();
  nlohmann::json j;
  j["record_ns_per_op"] = r.record_ns_per_op;
  j["sync_ns_per_node"] = r.sync_ns_per_node;
  j["libtorch_ns_per_op"] = opt(r.libtorch.ns_per_op);
  j["torch_lazy_ns_per_op"] = opt(r.torch_lazy.ns_per_op);
  j["record_over_libtorch"] = opt(lt);
  j["torch_lazy_over_record"] = opt(tl);
  j["meets_libtorch_target"] = meets(lt, lt && *lt <= TraceBenchResult::kLibtorchTarget);
  j["meets_torch_lazy_target"] = meets(tl, tl && *tl >= TraceBenchResult::kTorchLazyTarget);
  j["sync_timer_ns_per_node"] = r.sync_timer_ns_per_node;
  j["mixed_ns_per_op"] = r.mixed_ns_per_op;
  j["mixed_nodes_per_op"] = r.mixed_nodes_per_op;
  j["size_cuts_in_timed_regions"] = r.size_cuts;
  j["cache_misses_in_timed_syncs"] = r.sync_cache_misses;
  j["ops"] = r.options.ops;
  j["reps"] = r.options.reps;
  j["clock"] = "thread_cpu";
  j["libtorch_detail"] = detail_json(r.libtorch.detail);
  j["torch_lazy_detail"] = detail_json(r.torch_lazy.detail);
  return j;
}

std::string to_table(const TraceBenchResult& r) {
  char line[256];
  std::ostringstream os;
  auto row = [&](const char* name, double v, const char* unit, const char* what) {
    std::snprintf(line, sizeof line, "  %-22s %10.1f %-8s %s\n", name, v, unit, what);
    os << line;
  };
  auto peer_row = [&](const char* name, const PeerResult& p, const char* what) {
    if (p.ns_per_op) {
      row(name, *p.ns_per_op, "ns/op", what);
    } else {
      std::snprintf(line, sizeof line, "  %-22s %10s %-8s %s\n", name, "-", "", p.detail.c_str());
      os << line;
    }
  };
  auto target_row = [&](const char* name, const std::optional<double>& v, bool ok,
                        const char* target) {
    if (!v) {
      std::snprintf(line, sizeof line, "  %-22s %10s          target %s: peer absent\n", name, "-",
                    target);
    } else {
      std::snprintf(line, sizeof line, "  %-22s %10.3f          target %s: %s\n", name, *v, target,
                    ok ? "met" : "NOT met");
    }
    os << line;
  };
  os << "lazax bench trace: " << r.options.ops << " ops per chain, median of " << r.options.reps
     << " repetitions, thread CPU time\n";
  row("record", r.record_ns_per_op, "ns/op", "c = a + b, f32[16], long chain");
  row("sync walk+hash+lookup", r.sync_ns_per_node, "ns/node", "cached graph, no execution");
  row("  SyncHashTime timer", r.sync_timer_ns_per_node, "ns/node", "the same, wall clock, in sync");
  row("record, mixed chain", r.mixed_ns_per_op, "ns/op", "matmul, softmax, broadcasts, scalars");
  std::snprintf(line, sizeof line, "  %-22s %10.2f %-8s\n", "  graph nodes", r.mixed_nodes_per_op,
                "per op");
  os << line;
  peer_row("libtorch eager add", r.libtorch, "torch::add, f32[16], no grad, 1 thread");
  peer_row("torch._lazy trace", r.torch_lazy, "a + b on lazy f32[16]");
  auto lt = r.record_over_libtorch();
  auto tl = r.torch_lazy_over_record();
  target_row("record / libtorch", lt, lt && *lt <= TraceBenchResult::kLibtorchTarget, "<= 0.2");
  target_row("torch._lazy / record", tl, tl && *tl >= TraceBenchResult::kTorchLazyTarget, ">= 20");
  if (r.size_cuts || r.sync_cache_misses)
    os << "  warning: " << r.size_cuts << " graph-size cuts and " << r.sync_cache_misses
       << " cache misses happened inside timed regions\n";
  return os.str();
}

}  // namespace lazax::bench
