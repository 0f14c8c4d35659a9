#include "lazax/trace/graph.h"

#include <atomic>

#include "lazax/core/metrics.h"

namespace lazax {
namespace {
std::atomic<int64_t> g_live_nodes{0};
metrics::Counter& ops_recorded() {
  static metrics::Counter& c = metrics::counter("OpsRecorded");
  return c;
}
}  // namespace

GraphNode::GraphNode() { g_live_nodes.fetch_add(1, std::memory_order_relaxed); }
GraphNode::~GraphNode() { g_live_nodes.fetch_sub(1, std::memory_order_relaxed); }

int64_t live_graph_nodes() { return g_live_nodes.load(std::memory_order_relaxed); }

std::vector<GraphValue> record_multi(OpCode op, std::vector<GraphValue> operands, Attrs attrs,
                                     DebugInfo debug) {
  std::vector<TensorType> in;
  in.reserve(operands.size());
  SmallVec<uint64_t, 4> hashes;
  SmallVec<int32_t, 4> indices;
  for (const auto& v : operands) {
    in.push_back(v.type());
    hashes.push_back(v.node->hash);
    indices.push_back(v.index);
  }
  auto node = std::make_shared<GraphNode>();
  node->outputs = infer_types(op, in, attrs);
  node->op = op;
  node->hash = node_hash(op, attrs, node->outputs, {hashes.begin(), hashes.size()},
                         {indices.begin(), indices.size()});
  node->attrs = std::move(attrs);
  node->operands = std::move(operands);
  node->debug = debug;
  ops_recorded().add();
  std::vector<GraphValue> outs;
  outs.reserve(node->outputs.size());
  for (size_t i = 0; i < node->outputs.size(); ++i)
    outs.push_back(GraphValue{node, static_cast<int32_t>(i)});
  return outs;
}

GraphValue record(OpCode op, std::vector<GraphValue> operands, Attrs attrs, DebugInfo debug) {
  auto outs = record_multi(op, std::move(operands), std::move(attrs), debug);
  return std::move(outs[0]);
}

GraphValue data_leaf(Literal value) {
  auto node = std::make_shared<GraphNode>();
  node->op = OpCode::parameter;
  node->outputs = {value.type};
  node->attrs = ParameterAttrs{0};
  node->hash = node_hash(OpCode::parameter, node->attrs, node->outputs, {}, {});
  node->data = std::move(value);
  return GraphValue{node, 0};
}

}  // namespace lazax
