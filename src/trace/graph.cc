#include "lazax/trace/graph.h"

#include <array>
#include <atomic>
#include <span>
#include <string>

#include "lazax/core/error.h"
#include "lazax/core/hash.h"
#include "lazax/core/metrics.h"
#include "lazax/trace/scope.h"
#include "lazax/trace/trace_stack.h"

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

namespace {

// The structural hash of a graph node: op, attributes, output types, operand hashes and output
// indices, packed into words and hashed in one pass (recording is the lazy trace's hot path).
// It keys the lazy graph at sync; a synced Function's nodes get the IR's node_hash.
uint64_t graph_node_hash(OpCode op, const Attrs& attrs, const std::vector<TensorType>& outputs,
                         const std::vector<GraphValue>& operands) {
  SmallVec<uint64_t, 24> w;
  w.push_back(static_cast<uint64_t>(op));
  w.push_back(hash_attrs(attrs));
  w.push_back(outputs.size());
  for (const TensorType& t : outputs) {
    w.push_back(static_cast<uint64_t>(t.dtype) << 32 | t.shape.rank());
    for (int64_t d : t.shape) w.push_back(static_cast<uint64_t>(d));
  }
  for (const GraphValue& v : operands) {
    w.push_back(v.node->hash);
    w.push_back(static_cast<uint64_t>(v.index));
  }
  return hash_bytes(w.data(), w.size() * sizeof(uint64_t));
}

// Checks `op` with its shape rule (throwing before anything is made) and makes its node.
GraphNodePtr make_node(OpCode op, std::vector<GraphValue>&& operands, Attrs&& attrs,
                       const DebugInfo& debug) {
  // The operand types the shape rule reads: on the stack for the usual small arities.
  constexpr size_t kInline = 4;
  std::array<TensorType, kInline> inline_types;
  std::vector<TensorType> many_types;
  std::span<const TensorType> in;
  if (operands.size() <= kInline) {
    for (size_t i = 0; i < operands.size(); ++i) inline_types[i] = operands[i].type();
    in = {inline_types.data(), operands.size()};
  } else {
    many_types.reserve(operands.size());
    for (const GraphValue& v : operands) many_types.push_back(v.type());
    in = many_types;
  }
  std::vector<TensorType> outputs = infer_types(op, in, attrs);
  auto node = std::make_shared<GraphNode>();
  node->hash = graph_node_hash(op, attrs, outputs, operands);
  node->op = op;
  node->outputs = std::move(outputs);
  node->attrs = std::move(attrs);
  node->operands = std::move(operands);
  node->debug = debug;
  if (!node->debug.scope) node->debug.scope = current_scope();
  node->frame = current_frame_ptr();
  ops_recorded().add();
  return node;
}

}  // namespace

std::vector<GraphValue> record_multi(OpCode op, std::vector<GraphValue> operands, Attrs attrs,
                                     DebugInfo debug) {
  GraphNodePtr node = make_node(op, std::move(operands), std::move(attrs), debug);
  std::vector<GraphValue> outs;
  outs.reserve(node->outputs.size());
  for (size_t i = 0; i < node->outputs.size(); ++i)
    outs.push_back(GraphValue{node, static_cast<int32_t>(i)});
  return outs;
}

GraphValue record(OpCode op, std::vector<GraphValue> operands, Attrs attrs, DebugInfo debug) {
  GraphNodePtr node = make_node(op, std::move(operands), std::move(attrs), debug);
  if (node->outputs.empty())
    throw ValueError("[" + std::string(op_name(op)) + "] has no result to return here");
  return GraphValue{std::move(node), 0};
}

GraphValue data_leaf(Literal value) {
  auto node = std::make_shared<GraphNode>();
  node->op = OpCode::parameter;
  node->outputs = {value.type};
  node->attrs = ParameterAttrs{0};
  node->hash = graph_node_hash(OpCode::parameter, node->attrs, node->outputs, {});
  node->data = std::move(value);
  return GraphValue{node, 0};
}

}  // namespace lazax
