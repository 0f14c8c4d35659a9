// Compiled programs keyed by the structural hash of the synced graph (which covers the input
// signature: data leaves hash by dtype and shape). Each entry keeps a summary of its program so a
// miss can be explained against the closest cached graph.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lazax/backend/backend.h"

namespace lazax {

// What LAZAX_DEBUG compares: input types and the sequence of ops with their result types.
struct GraphSummary {
  std::vector<TensorType> inputs;
  struct Op {
    OpCode op;
    TensorType type;
    DebugInfo debug;
  };
  std::vector<Op> ops;
  static GraphSummary of(const Function& f);
};

class CompileCache {
 public:
  Executable* find(uint64_t key) const;
  Executable& insert(uint64_t key, std::unique_ptr<Executable> exe, GraphSummary summary);
  size_t size() const { return entries_.size(); }
  void clear() {
    entries_.clear();
    order_.clear();
  }
  // The largest peak of live device bytes that the backend planned for a cached program
  // (Executable::plan_stats; 0 where the backend plans none).
  int64_t max_planned_peak_bytes() const;
  // Explains how `s` differs from the closest cached program ("" when the cache is empty).
  std::string explain_miss(const GraphSummary& s) const;

 private:
  struct Entry {
    std::unique_ptr<Executable> exe;
    GraphSummary summary;
  };
  std::unordered_map<uint64_t, Entry> entries_;
  std::vector<uint64_t> order_;
};

}  // namespace lazax
