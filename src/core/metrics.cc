#include "lazax/core/metrics.h"

#include <memory>
#include <mutex>

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

}  // namespace lazax::metrics
