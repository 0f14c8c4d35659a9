// Common subexpression elimination over the structural node hash, checked by full equality.
#include <unordered_map>

#include "lazax/passes/passes.h"
#include "rebuild.h"

namespace lazax::passes {
namespace {

// Whether the new node `m` computes what the node `op(attrs, operands) -> outputs` would.
bool same_node(const Node& m, const Node& n, const Attrs& attrs,
               const std::vector<ValueRef>& operands) {
  if (m.op != n.op || m.outputs != n.outputs || m.operands.size() != operands.size()) return false;
  for (size_t k = 0; k < operands.size(); ++k)
    if (!(m.operands[k] == operands[k])) return false;
  return attrs_equal(m.attrs, attrs);
}

}  // namespace

FunctionPtr cse(const FunctionPtr& f) {
  detail::Rebuild r(f);
  Builder& b = r.builder();
  std::unordered_multimap<uint64_t, int32_t> seen;  // node hash -> new node id
  for (size_t i = static_cast<size_t>(f->num_params()); i < f->nodes().size(); ++i) {
    const Node& n = f->nodes()[i];
    Attrs attrs = n.attrs;
    if (has_flag(n.op, kHasBodies) && detail::map_bodies(attrs, cse)) r.changed = true;
    std::vector<ValueRef> operands = r.mapped_operands(n);
    // A barrier stays where it is: merging two would let computation cross it.
    bool mergeable = n.op != OpCode::optimization_barrier && !has_flag(n.op, kCollective);
    uint64_t h = 0;
    if (mergeable) {
      std::vector<uint64_t> hashes;
      std::vector<int32_t> indices;
      for (ValueRef v : operands) {
        hashes.push_back(b.node(v.node).hash);
        indices.push_back(v.index);
      }
      h = node_hash(n.op, attrs, n.outputs, hashes, indices);
      auto [lo, hi] = seen.equal_range(h);
      bool merged = false;
      for (auto it = lo; it != hi && !merged; ++it) {
        const Node& m = b.node(it->second);
        if (!same_node(m, n, attrs, operands)) continue;
        std::vector<ValueRef> outs;
        for (size_t k = 0; k < n.outputs.size(); ++k)
          outs.push_back(ValueRef{it->second, static_cast<int32_t>(k)});
        r.set(static_cast<int32_t>(i), std::move(outs));
        r.changed = merged = true;
      }
      if (merged) continue;
    }
    std::vector<ValueRef> outs = r.copy(n, std::move(attrs));
    if (mergeable)
      seen.emplace(h, outs.empty() ? static_cast<int32_t>(b.num_nodes() - 1) : outs[0].node);
    r.set(static_cast<int32_t>(i), std::move(outs));
  }
  return r.finish();
}

}  // namespace lazax::passes
