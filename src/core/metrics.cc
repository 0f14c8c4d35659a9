#include "lazax/core/metrics.h"

#include <memory>
#include <mutex>
#include <utility>

namespace lazax::metrics {
namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Counter>> counters;
  std::map<std::string, std::unique_ptr<Timer>> timers;
  std::map<std::string, int64_t> breaks;
};
Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: counters may be bumped at exit
  return *r;
}
}  // namespace

Counter& counter(const std::string& name) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& slot = r.counters[name];
  if (!slot) slot = std::make_unique<Counter>();
  return *slot;
}

Timer& timer(const std::string& name) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& slot = r.timers[name];
  if (!slot) slot = std::make_unique<Timer>();
  return *slot;
}

std::map<std::string, int64_t> counters() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::map<std::string, int64_t> out;
  for (auto& [k, v] : r.counters) out[k] = v->get();
  return out;
}

std::map<std::string, std::pair<int64_t, int64_t>> timers() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (auto& [k, v] : r.timers) out[k] = {v->total_ns.load(), v->count.load()};
  return out;
}

void reset() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& [k, v] : r.counters) v->value.store(0);
  for (auto& [k, v] : r.timers) {
    v->total_ns.store(0);
    v->count.store(0);
  }
  r.breaks.clear();
}

void record_graph_break(const std::string& where) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  ++r.breaks[where];
}

std::map<std::string, int64_t> graph_breaks() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.breaks;
}

namespace {
// The fields of Snapshot with their registry names (metrics.h's table).
constexpr std::pair<int64_t Snapshot::*, const char*> kCounterFields[] = {
    {&Snapshot::ops_recorded, "OpsRecorded"},
    {&Snapshot::syncs, "Syncs"},
    {&Snapshot::graph_breaks, "GraphBreaks"},
    {&Snapshot::graph_size_cuts, "GraphSizeCuts"},
    {&Snapshot::compiles, "UncachedCompile"},
    {&Snapshot::cache_hits, "CachedCompile"},
    {&Snapshot::synced_nodes, "SyncedNodes"},
    {&Snapshot::function_traces, "FunctionTraces"},
    {&Snapshot::pure_traces, "PureTraces"},
    {&Snapshot::pure_calls, "PureCalls"},
    {&Snapshot::vjp_program_builds, "VjpProgramBuilds"},
};
constexpr std::pair<double Snapshot::*, const char*> kTimerFields[] = {
    {&Snapshot::sync_hash_ms, "SyncHashTime"}, {&Snapshot::compile_ms, "CompileTime"},
    {&Snapshot::execute_ms, "ExecuteTime"},    {&Snapshot::trace_ms, "TraceTime"},
    {&Snapshot::vjp_build_ms, "VjpBuildTime"},
};
}  // namespace

Snapshot snapshot() {
  Snapshot s;
  for (const auto& [field, name] : kCounterFields) s.*field = counter(name).get();
  for (const auto& [field, name] : kTimerFields) {
    s.*field = static_cast<double>(timer(name).total_ns.load()) / 1e6;
  }
  return s;
}

Snapshot Snapshot::operator-(const Snapshot& earlier) const {
  Snapshot d;
  for (const auto& [field, name] : kCounterFields) d.*field = this->*field - earlier.*field;
  for (const auto& [field, name] : kTimerFields) d.*field = this->*field - earlier.*field;
  return d;
}

}  // namespace lazax::metrics
