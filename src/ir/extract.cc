#include "lazax/ir/extract.h"

#include <map>

#include "lazax/core/error.h"

namespace lazax {

FunctionPtr extract_function(const Function& f, std::string name,
                             const std::vector<ValueRef>& inputs,
                             const std::vector<ValueRef>& outputs) {
  // Which nodes are needed: walk back from the outputs, stopping at the inputs.
  std::map<std::pair<int32_t, int32_t>, int32_t> input_pos;
  for (size_t i = 0; i < inputs.size(); ++i)
    input_pos.emplace(std::make_pair(inputs[i].node, inputs[i].index), static_cast<int32_t>(i));
  std::vector<char> needed(f.nodes().size(), 0);
  std::vector<int32_t> stack;
  auto mark_needed = [&](ValueRef v) {
    if (input_pos.count({v.node, v.index})) return;
    if (!needed[static_cast<size_t>(v.node)]) {
      needed[static_cast<size_t>(v.node)] = 1;
      stack.push_back(v.node);
    }
  };
  for (auto o : outputs) mark_needed(o);
  while (!stack.empty()) {
    int32_t n = stack.back();
    stack.pop_back();
    const Node& node = f.node(n);
    if (node.op == OpCode::parameter)
      throw ValueError("[extract] @" + f.name() + " parameter " + std::to_string(n) +
                       " is needed but is not an input of the extracted function @" + name);
    for (auto o : node.operands) mark_needed(o);
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i < inputs.size(); ++i)
    nodes.push_back(make_param_node(static_cast<int64_t>(i), f.type(inputs[i])));
  std::vector<int32_t> new_index(f.nodes().size(), -1);
  auto ref = [&](ValueRef v) -> ValueRef {
    auto it = input_pos.find({v.node, v.index});
    if (it != input_pos.end()) return {it->second, 0};
    return {new_index[static_cast<size_t>(v.node)], v.index};
  };
  for (size_t i = 0; i < f.nodes().size(); ++i) {
    if (!needed[i]) continue;
    const Node& old = f.nodes()[i];
    Node n;
    n.op = old.op;
    n.attrs = old.attrs;
    n.outputs = old.outputs;
    n.debug = old.debug;
    for (auto o : old.operands) n.operands.push_back(ref(o));
    seal_node(n, nodes);
    new_index[i] = static_cast<int32_t>(nodes.size());
    nodes.push_back(std::move(n));
  }
  std::vector<ValueRef> results;
  results.reserve(outputs.size());
  for (auto o : outputs) results.push_back(ref(o));
  return std::make_shared<Function>(std::move(name), std::move(nodes),
                                    static_cast<int>(inputs.size()), std::move(results));
}

}  // namespace lazax
