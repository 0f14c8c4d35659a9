// Named counters and timers, registered once and bumped from any layer. Cheap when unused:
// a counter is an atomic add; a timer a steady_clock read pair.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lazax::metrics {

struct Counter {
  std::atomic<int64_t> value{0};
  void add(int64_t n = 1) { value.fetch_add(n, std::memory_order_relaxed); }
  int64_t get() const { return value.load(std::memory_order_relaxed); }
};

struct Timer {
  std::atomic<int64_t> total_ns{0};
  std::atomic<int64_t> count{0};
  void add_ns(int64_t ns) {
    total_ns.fetch_add(ns, std::memory_order_relaxed);
    count.fetch_add(1, std::memory_order_relaxed);
  }
};

// Returns the counter/timer with this name, creating it on first use (the reference is stable).
Counter& counter(const std::string& name);
Timer& timer(const std::string& name);

// Snapshot of all counters and timers (name -> value / total ns and count), sorted by name.
std::map<std::string, int64_t> counters();
std::map<std::string, std::pair<int64_t, int64_t>> timers();
// Zeroes every counter and timer.
void reset();

// What lazax counts, typed: one field per counter and timer it keeps (the one table of their
// names). Read with snapshot(); take the difference of two snapshots for a stretch of code.
//   field               registry name      counts / times
//   ops_recorded        OpsRecorded        ops recorded into lazy graphs and traces
//   syncs               Syncs              sync() calls that ran a graph
//   graph_breaks        GraphBreaks        syncs forced by reading a value (item(), printing)
//   graph_size_cuts     GraphSizeCuts      pending graphs cut because they grew too large
//   compiles            UncachedCompile    graphs compiled (a compile-cache miss)
//   cache_hits          CachedCompile      graphs found in the compile cache
//   synced_nodes        SyncedNodes        graph nodes walked by sync
//   function_traces     FunctionTraces     functions traced (jit, assume_pure, control bodies)
//   pure_traces         PureTraces         assume_pure traces (a new input signature)
//   pure_calls          PureCalls          assume_pure calls
//   vjp_program_builds  VjpProgramBuilds   forward/backward program pairs built for a function
//   sync_hash_ms        SyncHashTime       walking and hashing graphs at sync
//   compile_ms          CompileTime        compiling graphs (passes and backend)
//   execute_ms          ExecuteTime        running compiled graphs
//   trace_ms            TraceTime          tracing assume_pure functions
//   vjp_build_ms        VjpBuildTime       building VJP programs
struct Snapshot {
  int64_t ops_recorded = 0, syncs = 0, graph_breaks = 0, graph_size_cuts = 0, compiles = 0,
          cache_hits = 0, synced_nodes = 0, function_traces = 0, pure_traces = 0, pure_calls = 0,
          vjp_program_builds = 0;
  double sync_hash_ms = 0, compile_ms = 0, execute_ms = 0, trace_ms = 0, vjp_build_ms = 0;
  // Field by field: this minus an earlier snapshot.
  Snapshot operator-(const Snapshot& earlier) const;
};
Snapshot snapshot();

// Graph breaks by source location ("file:line" -> count).
void record_graph_break(const std::string& where);
std::map<std::string, int64_t> graph_breaks();

// Adds the elapsed time to a timer when destroyed.
class ScopedTimer {
 public:
  explicit ScopedTimer(Timer& t) : t_(t), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    t_.add_ns(std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start_)
                  .count());
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timer& t_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace lazax::metrics
