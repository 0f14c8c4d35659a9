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

#include "lazax/core/interned_type.h"
#include "lazax/core/pool_allocator.h"
#include "lazax/ir/function.h"
#include "lazax/ir/literal.h"
#include "lazax/ir/shared_attrs.h"
#include "lazax/trace/inline_vec.h"

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

// A node's output types, interned (core/interned_type.h): the node holds a pointer to the
// process's one copy of each, which the handles of its values share. One type (the usual case)
// is held inline. A call's list is borrowed from its callee (the node's CallAttrs keeps the
// callee alive): a call has tens of results (assume_pure's forward and backward), which would
// otherwise be interned on every step. Other lists of several are the node's own.
class GraphOutputs {
 public:
  GraphOutputs() = default;
  GraphOutputs(std::initializer_list<TensorType> ts)
      : GraphOutputs(std::span<const TensorType>(ts.begin(), ts.size())) {}
  explicit GraphOutputs(std::span<const TensorType> ts);
  // One type, interned already.
  static GraphOutputs one(const TensorType& interned) {
    GraphOutputs o;
    o.p_ = reinterpret_cast<uintptr_t>(&interned);
    o.size_ = 1;
    o.kind_ = Kind::one;
    return o;
  }
  static GraphOutputs borrowed(std::span<const TensorType* const> ts) {
    GraphOutputs o;
    o.p_ = reinterpret_cast<uintptr_t>(ts.data()) | kList;
    o.size_ = static_cast<uint32_t>(ts.size());
    o.kind_ = Kind::borrowed;
    return o;
  }
  GraphOutputs(const GraphOutputs&) = delete;  // (a borrowed view must not outlive its node)
  GraphOutputs& operator=(const GraphOutputs&) = delete;
  GraphOutputs(GraphOutputs&& o) noexcept
      : p_(std::exchange(o.p_, 0)),
        size_(std::exchange(o.size_, 0)),
        kind_(std::exchange(o.kind_, Kind::none)) {}
  GraphOutputs& operator=(GraphOutputs&& o) noexcept {
    if (this != &o) {
      free();
      p_ = std::exchange(o.p_, 0);
      size_ = std::exchange(o.size_, 0);
      kind_ = std::exchange(o.kind_, Kind::none);
    }
    return *this;
  }
  ~GraphOutputs() { free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Interned: valid for the rest of the process, after the node is gone. (Reads only the first
  // word: a type read through a node touches the node's first cache line only.)
  const TensorType& operator[](size_t i) const {
    return (p_ & kList) ? *list()[i] : *reinterpret_cast<const TensorType*>(p_);
  }
  operator std::vector<TensorType>() const {
    std::vector<TensorType> out;
    out.reserve(size_);
    for (size_t i = 0; i < size_; ++i) out.push_back((*this)[i]);
    return out;
  }

 private:
  enum class Kind : uint8_t { none, one, owned, borrowed };
  static constexpr uintptr_t kList = 1;  // p_ is a list of pointers (else the one type)
  const TensorType* const* list() const {
    return reinterpret_cast<const TensorType* const*>(p_ & ~kList);
  }
  void free() {
    if (kind_ == Kind::owned) delete[] list();
  }
  uintptr_t p_ = 0;  // the type, or the list | kList
  uint32_t size_ = 0;
  Kind kind_ = Kind::none;
};

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

// Records an op: checks it with the shape rule (throws, recording nothing, when it does not fit)
// and returns its node; output i is GraphValue{node, i} (no list is made: a call has tens).
GraphNodePtr record_multi(OpCode op, GraphOperands&& operands, SharedAttrs attrs,
                          DebugInfo debug = {});
// The same for an op with one result, folding layout chains as it records (exact): a transpose
// of a transpose, a reshape of a reshape and a broadcast_in_dim of a broadcast_in_dim become one
// op, and an op that changes nothing (identity transpose, reshape or broadcast) returns its
// operand. Only nodes of the current trace context are folded through.
GraphValue record(OpCode op, GraphOperands&& operands, SharedAttrs attrs = {},
                  DebugInfo debug = {});
// A call (CallAttrs with a callee) whose operands the caller has checked against the callee's
// parameters, recorded without reading their types again. assume_pure's calls take a model's
// parameters, whose graph nodes are cold by then; the caller compares the tensors' own types.
GraphNodePtr record_checked_call(GraphOperands&& operands, SharedAttrs attrs);
// A data leaf: becomes a parameter of the synced Function, hashed by type only.
GraphValue data_leaf(Literal value);

// A leaf (a parameter node) of type `type` in the trace context `frame` (null: the lazy graph),
// without data: a function trace's input. Every leaf, data leaves too, is made here and hashed
// by its type only, so that new data, or another trace's input of that type, hashes the same.
GraphNodePtr make_leaf_node(const TensorType& type, std::shared_ptr<TraceFrame> frame);

// Number of graph nodes alive now (the size of all pending graphs together).
int64_t live_graph_nodes();

}  // namespace lazax
