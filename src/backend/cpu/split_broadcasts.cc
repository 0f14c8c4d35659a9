// split_shared_broadcasts (fused.h): one copy of a shared broadcast per fusible reader.
#include <algorithm>
#include <vector>

#include "fused.h"

namespace lazax::cpu {

FunctionPtr split_shared_broadcasts(const FunctionPtr& fp, const std::vector<FusionGroup>& groups) {
  const Function& f = *fp;
  const std::vector<Node>& nodes = f.nodes();
  const size_t n = nodes.size();
  std::vector<int32_t> group_of(n, -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int32_t m : groups[g].members) group_of[static_cast<size_t>(m)] = static_cast<int32_t>(g);
  // A reader gets a copy of a broadcast when it is fused in a group the broadcast is not in, and
  // the broadcast is one a group can hold (it is in a group, or of a scalar): otherwise each
  // copy would be written out on its own.
  auto copied_for = [&](size_t reader, ValueRef v) {
    const auto b = static_cast<size_t>(v.node);
    if (nodes[b].op != OpCode::broadcast_in_dim || group_of[reader] < 0) return false;
    const bool fusible = group_of[b] >= 0 || f.type(nodes[b].operands[0]).shape.rank() == 0;
    return fusible && group_of[reader] != group_of[b];
  };
  std::vector<bool> kept(n, true);  // a broadcast still read as it is (by a reader or a result)
  for (size_t i = 0; i < n; ++i)
    if (nodes[i].op == OpCode::broadcast_in_dim) kept[i] = false;
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    for (ValueRef v : nodes[i].operands) {
      const bool copy = copied_for(i, v);
      any = any || copy;
      if (!copy) kept[static_cast<size_t>(v.node)] = true;
    }
  }
  if (!any) return fp;
  for (ValueRef r : f.results()) kept[static_cast<size_t>(r.node)] = true;

  std::vector<Node> out;
  out.reserve(n + n / 4);
  std::vector<int32_t> at(n, -1);  // old node -> new node (-1: a broadcast no longer read)
  auto mapped = [&](ValueRef v) { return ValueRef{at[static_cast<size_t>(v.node)], v.index}; };
  std::vector<std::pair<int32_t, int32_t>> copies;  // (old broadcast, its copy) for this reader
  for (size_t i = 0; i < n; ++i) {
    if (!kept[i]) continue;
    Node node = nodes[i];
    copies.clear();
    for (ValueRef& v : node.operands) {
      if (!copied_for(i, v)) {
        v = mapped(v);
        continue;
      }
      auto it = std::find_if(copies.begin(), copies.end(),
                             [&](const auto& c) { return c.first == v.node; });
      if (it == copies.end()) {  // the copy goes just before its reader, into the reader's group
        Node b = nodes[static_cast<size_t>(v.node)];
        for (ValueRef& w : b.operands) w = mapped(w);
        out.push_back(std::move(b));
        copies.emplace_back(v.node, static_cast<int32_t>(out.size()) - 1);
        it = copies.end() - 1;
      }
      v = ValueRef{it->second, v.index};
    }
    at[i] = static_cast<int32_t>(out.size());
    out.push_back(std::move(node));
  }
  std::vector<ValueRef> results;
  results.reserve(f.results().size());
  for (ValueRef r : f.results()) results.push_back(mapped(r));
  // (The copies keep the nodes' structural hashes: a hash names operands by their hashes.)
  return std::make_shared<const Function>(f.name(), std::move(out), f.num_params(),
                                          std::move(results));
}

}  // namespace lazax::cpu
