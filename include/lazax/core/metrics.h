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
