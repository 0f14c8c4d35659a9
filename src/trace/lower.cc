#include "lazax/trace/lower.h"

#include <unordered_set>
#include <utility>
#include <vector>

#include "lazax/core/error.h"

namespace lazax {

FunctionPtr lower(std::string name, std::span<GraphNode* const> params,
                  std::span<const GraphValue> results) {
  // Post-order from the results: a node comes after its operands. (Made once per trace or
  // cache miss, so a set marks what was seen, not the nodes' walk scratch.)
  std::unordered_set<const GraphNode*> seen(params.begin(), params.end());
  std::vector<GraphNode*> nodes;
  std::vector<std::pair<GraphNode*, size_t>> stack;  // (node, its next operand)
  auto visit = [&](GraphNode* n) {
    if (!seen.insert(n).second) return;
    if (n->op == OpCode::parameter) {
      throw ValueError("[lower] internal error: '" + name +
                       "' reads a leaf that is none of its parameters (a value from outside a "
                       "function trace that was not lifted)");
    }
    stack.push_back({n, 0});
  };
  for (const GraphValue& r : results) {
    visit(r.node.get());
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      if (next < n->operands.size()) {
        visit(n->operands[next++].node.get());  // (may push: `n` and `next` are not used after)
        continue;
      }
      nodes.push_back(n);
      stack.pop_back();
    }
  }
  return lower_walked(std::move(name), params, nodes, results);
}

FunctionPtr lower_walked(std::string name, std::span<GraphNode* const> params,
                         std::span<GraphNode* const> nodes, std::span<const GraphValue> results) {
  const int32_t num_params = static_cast<int32_t>(params.size());
  for (int32_t i = 0; i < num_params; ++i) params[static_cast<size_t>(i)]->topo_index = i;
  for (size_t i = 0; i < nodes.size(); ++i)
    nodes[i]->topo_index = num_params + static_cast<int32_t>(i);
  std::vector<Node> out;
  out.reserve(params.size() + nodes.size());
  for (int32_t i = 0; i < num_params; ++i)
    out.push_back(make_param_node(i, params[static_cast<size_t>(i)]->outputs[0]));
  for (const GraphNode* g : nodes) {
    Node n;
    n.op = g->op;
    n.attrs = *g->attrs;
    n.outputs = g->outputs;
    n.debug = g->debug;
    for (const GraphValue& o : g->operands)
      n.operands.push_back(ValueRef{o.node->topo_index, o.index});
    seal_node(n, out);
    out.push_back(std::move(n));
  }
  std::vector<ValueRef> refs;
  refs.reserve(results.size());
  for (const GraphValue& r : results) refs.push_back({r.node->topo_index, r.index});
  return std::make_shared<Function>(std::move(name), std::move(out), num_params, std::move(refs));
}

}  // namespace lazax
