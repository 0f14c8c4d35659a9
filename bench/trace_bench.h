// `lazax bench trace`: the host cost of the lazy trace. Recording one op (small tensors, long
// chains) and hashing + looking up a graph at sync, next to two peers measured on the same
// machine: LibTorch's eager dispatch of the same op and PyTorch's own lazy tensor tracing
// (torch._lazy). A peer that is not installed is reported as absent (null in JSON).
//
// Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID) for lazax and both peers, so that other
// processes on a shared machine do not inflate them; each figure is a median of repetitions.
// The sync figure is Context::probe on a cached graph: the walk + hash + cache lookup that sync
// does before it compiles or executes, divided by the nodes walked. The runtime's SyncHashTime
// timer (wall clock) over a real sync of the same graph is reported next to it as a check.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace lazax::bench {

struct TraceBenchOptions {
  int64_t ops = 10000;  // ops per chain (one timed repetition)
  int reps = 9;         // repetitions; figures are medians
  bool peers = true;    // also measure LibTorch and torch._lazy when installed
};

// A peer's figure, or why there is none.
struct PeerResult {
  std::optional<double> ns_per_op;
  std::string detail;  // version and settings, or the reason it is absent
};

struct TraceBenchResult {
  TraceBenchOptions options;
  double record_ns_per_op = 0;        // c = a + b on f32[16], in a chain of options.ops
  double sync_ns_per_node = 0;        // walk + hash + cache lookup of a cached graph, per node
  double sync_timer_ns_per_node = 0;  // the runtime's SyncHashTime over a sync, per node (wall)
  double mixed_ns_per_op = 0;         // a mixed chain of small-tensor ops (matmul, softmax, ...)
  double mixed_nodes_per_op = 0;      // graph nodes those ops recorded, per op
  int64_t size_cuts = 0;              // graph-size cuts inside timed regions (should be 0)
  int64_t sync_cache_misses = 0;      // timed lookups that missed the cache (should be 0)
  PeerResult libtorch;                // LibTorch eager torch::add of two f32[16]
  PeerResult torch_lazy;              // torch._lazy tracing of a + b on f32[16]

  // Targets of the issue: recording <= 1/5 of LibTorch's eager op, >= 20x cheaper than torch._lazy.
  static constexpr double kLibtorchTarget = 0.2;
  static constexpr double kTorchLazyTarget = 20.0;
  std::optional<double> record_over_libtorch() const;    // want <= kLibtorchTarget
  std::optional<double> torch_lazy_over_record() const;  // want >= kTorchLazyTarget
};

TraceBenchResult run_trace_bench(const TraceBenchOptions& options);

// One JSON object: record_ns_per_op, sync_ns_per_node, libtorch_ns_per_op, torch_lazy_ns_per_op
// (null where absent), the ratios and whether each target is met, and the details.
nlohmann::json to_json(const TraceBenchResult& r);
// A small human-readable table of the same.
std::string to_table(const TraceBenchResult& r);

// The peers, run as subprocesses (internal to the benchmark; exposed for reuse by other benches).
PeerResult measure_libtorch_eager_add(int64_t ops, int reps);
PeerResult measure_torch_lazy_add(int64_t ops, int reps);

}  // namespace lazax::bench
