// The minimum cut memory_budget chooses with (src/autodiff/max_flow.h), against brute force: on
// small random graphs the flow equals the cheapest of all s-t cuts, and the source side it
// reports is a cut of that capacity.
#include "max_flow.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

namespace lazax::autodiff {
namespace {

struct Arc {
  int32_t from, to;
  double cap;
};

double cut_capacity(const std::vector<Arc>& arcs, const std::vector<char>& side) {
  double c = 0;
  for (const Arc& a : arcs)
    if (side[static_cast<size_t>(a.from)] && !side[static_cast<size_t>(a.to)]) c += a.cap;
  return c;
}

TEST(MaxFlow, EqualsTheCheapestCutOnRandomGraphs) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int32_t n = 2 + static_cast<int32_t>(rng() % 8);
    const int32_t s = 0, t = n - 1;
    std::vector<Arc> arcs;
    const int edges = static_cast<int>(rng() % 20);
    for (int e = 0; e < edges; ++e) {
      const auto from = static_cast<int32_t>(rng() % static_cast<uint32_t>(n));
      const auto to = static_cast<int32_t>(rng() % static_cast<uint32_t>(n));
      if (from == to) continue;
      const double cap = rng() % 7 == 0 ? MaxFlow::kInf : static_cast<double>(rng() % 10) / 2;
      arcs.push_back({from, to, cap});
    }
    MaxFlow g(n);
    for (const Arc& a : arcs) g.add_edge(a.from, a.to, a.cap);
    const double flow = g.run(s, t);
    double best = MaxFlow::kInf;
    for (uint32_t mask = 0; mask < (1u << n); ++mask) {  // every side with s and without t
      if (!(mask & 1u) || (mask >> static_cast<uint32_t>(t) & 1u)) continue;
      std::vector<char> side(static_cast<size_t>(n));
      for (int32_t v = 0; v < n; ++v) side[static_cast<size_t>(v)] = (mask >> v) & 1u;
      best = std::min(best, cut_capacity(arcs, side));
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    if (std::isinf(best)) {
      EXPECT_TRUE(std::isinf(flow));
      continue;
    }
    EXPECT_NEAR(flow, best, 1e-9);
    const auto& side = g.source_side();
    EXPECT_TRUE(side[static_cast<size_t>(s)]);
    EXPECT_FALSE(side[static_cast<size_t>(t)]);
    EXPECT_NEAR(cut_capacity(arcs, side), best, 1e-9);
  }
}

}  // namespace
}  // namespace lazax::autodiff
