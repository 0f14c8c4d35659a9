#include "max_flow.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace lazax::autodiff {
namespace {
constexpr double kEps = 1e-9;  // a residual capacity below this (relative to 1) counts as none
}

void MaxFlow::add_edge(int32_t from, int32_t to, double capacity) {
  adj_[static_cast<size_t>(from)].push_back(static_cast<int32_t>(edges_.size()));
  edges_.push_back({to, capacity});
  adj_[static_cast<size_t>(to)].push_back(static_cast<int32_t>(edges_.size()));
  edges_.push_back({from, 0.0});
}

// Breadth-first levels over edges with residual capacity; whether t is reached.
bool MaxFlow::levels(int32_t s, int32_t t) {
  level_.assign(adj_.size(), -1);
  std::queue<int32_t> q;
  level_[static_cast<size_t>(s)] = 0;
  q.push(s);
  while (!q.empty()) {
    const int32_t v = q.front();
    q.pop();
    for (int32_t e : adj_[static_cast<size_t>(v)]) {
      const Edge& E = edges_[static_cast<size_t>(e)];
      if (E.cap > kEps && level_[static_cast<size_t>(E.to)] < 0) {
        level_[static_cast<size_t>(E.to)] = level_[static_cast<size_t>(v)] + 1;
        q.push(E.to);
      }
    }
  }
  return level_[static_cast<size_t>(t)] >= 0;
}

// Pushes up to `limit` from v towards t along increasing levels; the amount pushed.
double MaxFlow::push(int32_t v, int32_t t, double limit) {
  if (v == t) return limit;
  auto& i = next_[static_cast<size_t>(v)];
  const auto& out = adj_[static_cast<size_t>(v)];
  for (; i < static_cast<int32_t>(out.size()); ++i) {
    const int32_t e = out[static_cast<size_t>(i)];
    Edge& E = edges_[static_cast<size_t>(e)];
    if (E.cap <= kEps || level_[static_cast<size_t>(E.to)] != level_[static_cast<size_t>(v)] + 1)
      continue;
    const double pushed = push(E.to, t, std::min(limit, E.cap));
    if (pushed > kEps) {
      E.cap -= pushed;
      edges_[static_cast<size_t>(e ^ 1)].cap += pushed;
      return pushed;
    }
  }
  return 0.0;
}

double MaxFlow::run(int32_t s, int32_t t) {
  double flow = 0.0;
  while (levels(s, t)) {
    next_.assign(adj_.size(), 0);
    for (double f = push(s, t, kInf); f > kEps; f = push(s, t, kInf)) {
      if (std::isinf(f)) {  // an s-t path of infinite edges: no finite cut
        source_side_.assign(adj_.size(), 0);
        source_side_[static_cast<size_t>(s)] = 1;
        return kInf;
      }
      flow += f;
    }
  }
  source_side_.assign(adj_.size(), 0);
  for (size_t v = 0; v < adj_.size(); ++v) source_side_[v] = level_[v] >= 0;
  return flow;
}

}  // namespace lazax::autodiff
