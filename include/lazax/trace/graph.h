// The lazy graph: pending IR values as a DAG of reference-counted nodes. Recording an op makes a
// node (shape rule checked, structural hash computed); nothing runs. A node dies with the last
// tensor that needs it, so dead tensors' work is never computed. At sync the runtime turns the
// nodes reachable from live pending tensors into a Function (the one IR).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "lazax/core/inline_vec.h"
#include "lazax/core/interned_type.h"
#include "lazax/core/pool_allocator.h"
#include "lazax/ir/function.h"
#include "lazax/ir/literal.h"
#include "lazax/ir/shared_attrs.h"
#include "lazax/trace/detail/graph_outputs.h"

namespace lazax {

struct GraphNode;
struct TraceFrame;
using GraphNodePtr = std::shared_ptr<GraphNode>;

// Output `index` of a graph node.
struct GraphValue {
  GraphNodePtr node;
  int32_t index = 0;
  bool defined() const { return node != nullptr; }
  // Interned (core/interned_type.h): valid after the node is gone.
  const TensorType& type() const;
};

// A node's operands (inline up to three, as for select).
using GraphOperands = InlineVec<GraphValue, 3>;

// What is read of every operand comes first, in the cache line of the node's reference count
// (which taking a reference touches anyway): the walk at sync reads op, epoch and hash, recording
// an op reads its operands' frames and types (a model's parameters' leaf nodes are cold by their
// layer's turn). The operands follow (the walk's second line); what only the teardown and the
// function builder read comes last.
struct GraphNode {
  OpCode op = OpCode::constant;
  // Scratch of the walks over a graph (one thread walks a graph at a time): sync's walk marks
  // the nodes it has seen with its epoch; it and the lowering (trace/lower.h) number them.
  int32_t topo_index = -1;
  uint64_t visit_epoch = 0;
  uint64_t hash = 0;  // the node by itself (not its operands); data leaves by dtype and shape
  // The function trace this node was recorded in; null in lazy mode (checked on every use).
  std::shared_ptr<TraceFrame> frame;
  GraphOutputs outputs;
  GraphOperands operands;
  SharedAttrs attrs;  // (shared with the tape entry, and interned: ir/shared_attrs.h)
  // op == parameter: a data leaf's value (null for a trace input). Apart from the node, which
  // the many nodes that hold no data do not pay for.
  PooledPtr<Literal> data;
  DebugInfo debug;

  GraphNode();
  // A recorded op, its parts computed beforehand (constructed in place: nothing written twice).
  GraphNode(OpCode op, uint64_t hash, GraphOperands&& operands, GraphOutputs&& outputs,
            SharedAttrs&& attrs, const DebugInfo& debug, std::shared_ptr<TraceFrame> frame);
  ~GraphNode();
  GraphNode(const GraphNode&) = delete;
  GraphNode& operator=(const GraphNode&) = delete;
};

inline const TensorType& GraphValue::type() const {
  return node->outputs[static_cast<size_t>(index)];
}

// Records an op on graph values: checks it with the shape rule (throws, recording nothing, when it
// does not fit) and returns its first result; result i is GraphValue{node, i}. Layout chains are
// folded as they are recorded (exact): a transpose of a transpose, a reshape of a reshape and a
// broadcast_in_dim of a broadcast_in_dim become one op, and an op that changes nothing returns its
// operand, which may be another node's value. Only nodes of the current trace context are folded
// through. (Tensors are recorded with record_op, api/tensor_impl.h, which calls this.)
GraphValue record(OpCode op, GraphOperands&& operands, SharedAttrs attrs = {},
                  DebugInfo debug = {});
// The one fast path: a call (CallAttrs with a callee) whose operands the caller has checked
// against the callee's parameters, recorded without reading their types again. assume_pure's
// calls take a model's parameters, whose graph nodes are cold by then; the caller compares the
// tensors' own types.
GraphNodePtr record_call_prechecked(GraphOperands&& operands, SharedAttrs attrs);
// A data leaf: becomes a parameter of the synced Function, hashed by type only.
GraphValue data_leaf(Literal value);

// A leaf (a parameter node) of type `type` in the trace context `frame` (null: the lazy graph),
// without data: a function trace's input. Every leaf, data leaves too, is made here and hashed
// by its type only, so that new data, or another trace's input of that type, hashes the same.
GraphNodePtr make_leaf_node(const TensorType& type, std::shared_ptr<TraceFrame> frame);

// Number of graph nodes alive now (the size of all pending graphs together).
int64_t live_graph_nodes();

}  // namespace lazax
