// A maximum flow / minimum s-t cut (Dinic's algorithm) over a small graph with real
// capacities: memory_budget's choice of what the forward saves (remat_cut.cc). Written here
// rather than taken from Boost.Graph (docs/DECISIONS.md, "Min-cut"): one function of ~60 lines,
// tested against brute force (tests/autodiff/max_flow_test.cc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace lazax::autodiff {

class MaxFlow {
 public:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  explicit MaxFlow(int32_t vertices) : adj_(static_cast<size_t>(vertices)) {}
  void add_edge(int32_t from, int32_t to, double capacity);
  // The maximum flow from s to t (the minimum cut's capacity); kInf when every cut is infinite.
  double run(int32_t s, int32_t t);
  // After run: whether vertex v is on the source's side of a minimum cut (reachable from s in the
  // residual graph).
  const std::vector<char>& source_side() const { return source_side_; }

 private:
  struct Edge {
    int32_t to;
    double cap;
  };
  bool levels(int32_t s, int32_t t);
  double push(int32_t v, int32_t t, double limit);

  std::vector<Edge> edges_;                // edge e and its reverse e ^ 1
  std::vector<std::vector<int32_t>> adj_;  // edge indices per vertex
  std::vector<int32_t> level_, next_;
  std::vector<char> source_side_;
};

}  // namespace lazax::autodiff
