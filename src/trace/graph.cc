#include "lazax/trace/graph.h"

#include <atomic>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "lazax/core/chain_release.h"
#include "lazax/core/error.h"
#include "lazax/core/hash.h"
#include "lazax/core/metrics.h"
#include "lazax/core/pool_allocator.h"
#include "lazax/core/small_vec.h"
#include "lazax/ir/layout_fold.h"
#include "lazax/trace/call_site.h"
#include "lazax/trace/scope.h"
#include "lazax/trace/trace_stack.h"

namespace lazax {
namespace {
std::atomic<int64_t> g_live_nodes{0};
metrics::Counter& ops_recorded() {
  static metrics::Counter& c = metrics::counter("OpsRecorded");
  return c;
}

// Graph nodes come from PoolAllocator (core/pool_allocator.h): each step frees one graph and
// records the next.
template <class... A>
GraphNodePtr new_node(A&&... args) {
  return make_pooled<GraphNode>(std::forward<A>(args)...);
}

}  // namespace

GraphNode::GraphNode() { g_live_nodes.fetch_add(1, std::memory_order_relaxed); }
GraphNode::GraphNode(OpCode op_, uint64_t hash_, GraphOperands&& operands_, GraphOutputs&& outputs_,
                     SharedAttrs&& attrs_, const DebugInfo& debug_,
                     std::shared_ptr<TraceFrame> frame_)
    : op(op_),
      hash(hash_),
      frame(std::move(frame_)),
      outputs(std::move(outputs_)),
      operands(std::move(operands_)),
      attrs(std::move(attrs_)),
      debug(debug_) {
  g_live_nodes.fetch_add(1, std::memory_order_relaxed);
}
GraphNode::~GraphNode() {
  g_live_nodes.fetch_sub(1, std::memory_order_relaxed);
  // Each operand's reference count is written next, likely a cache miss (a freed graph is
  // cold): they are fetched together. (allocate_shared's count sits just before the node.)
  for (const GraphValue& v : operands)
    __builtin_prefetch(reinterpret_cast<const char*>(v.node.get()) - 16, 1);
  // Long chains are freed iteratively (core/chain_release.h), not by nested destructors.
  ChainRelease<GraphNode>::release_links(operands,
                                         [](GraphValue& v) -> GraphNodePtr& { return v.node; });
}

GraphOutputs::GraphOutputs(std::span<const TensorType> ts)
    : size_(static_cast<uint32_t>(ts.size())) {
  if (ts.size() == 1) {
    p_ = reinterpret_cast<uintptr_t>(&intern_type(ts[0]));
    kind_ = Kind::one;
  } else if (!ts.empty()) {
    auto own = std::make_unique<const TensorType*[]>(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) own[i] = &intern_type(ts[i]);
    p_ = reinterpret_cast<uintptr_t>(own.release()) | kList;
    kind_ = Kind::owned;
  }
}

int64_t live_graph_nodes() { return g_live_nodes.load(std::memory_order_relaxed); }

namespace {

// The hash of a graph node by itself: op, attributes, and the numbers of operands and results,
// packed into words and hashed in one pass (recording is the lazy trace's hot path). Operands
// are not hashed: the key of a synced graph (runtime/context.cc) lists every node's operands by
// place, so a node's hash need not cover them again (a call has tens: assume_pure's forward and
// backward come here on every step). The output types of an op with operands follow from its
// op, attributes and operand types, so only a node without operands (a data leaf, whose hash
// is its type) hashes them. A synced Function's nodes get the IR's node_hash.
uint64_t graph_node_hash(OpCode op, uint64_t attrs_hash, std::span<const TensorType> outputs,
                         size_t num_operands) {
  // (One word for op and counts: op < 2^8, results < 2^24, operands < 2^32.)
  const uint64_t head = static_cast<uint64_t>(op) | static_cast<uint64_t>(outputs.size()) << 8 |
                        static_cast<uint64_t>(num_operands) << 32;
  if (num_operands > 0) return mix_word(mix_word(0x9e3779b97f4a7c15ull, head), attrs_hash);
  SmallVec<uint64_t, 16> w{head, attrs_hash};
  for (const TensorType& t : outputs) {
    w.push_back(static_cast<uint64_t>(t.dtype) << 32 | t.shape.rank());
    for (int64_t d : t.shape) w.push_back(static_cast<uint64_t>(d));
  }
  return hash_words(w.data(), w.size(), 0x9e3779b97f4a7c15ull);
}

// Checks `op` with its shape rule (throwing before anything is made) and makes its node.
// A call's callee when its operands fit the callee's parameters (else null: the shape rule then
// says what is wrong). Checked in place, without gathering the operand types: a call has many
// operands and results (assume_pure's backward: about 30), and its result types are kept by the
// callee.
const Function* fitting_callee(const GraphOperands& operands, const Attrs& attrs) {
  const auto* a = std::get_if<CallAttrs>(&attrs);
  const Function* f = a ? a->callee.get() : nullptr;
  if (!f || !f->takes_interned(operands.size(),
                               [&](size_t i) -> const TensorType& { return operands[i].type(); }))
    return nullptr;
  return f;
}

// The result type of recent shape-rule checks, by op, attributes and operand types (all
// interned: pointers stand for values for the rest of the process). A training step records
// thousands of ops over a few hundred distinct such keys; a shape rule is a pure function of
// them, so a key seen before needs no rule run (and its result no interning). Only checks that
// passed and gave one result are kept. Per thread, direct-mapped.
struct ShapeMemo {
  struct Entry {
    uint64_t op_and_arity = ~uint64_t{0};
    uintptr_t attrs = 0;
    const TensorType* in[3] = {};
    const TensorType* out = nullptr;
  };
  static constexpr size_t kEntries = 1024;
  Entry entries[kEntries];

  // The key of `op` on `operands` with `attrs`, or false when it has none.
  static bool key(OpCode op, const GraphOperands& operands, const SharedAttrs& attrs, Entry& k) {
    if (operands.size() > 3) return false;
    k.attrs = attrs.lasting_id();
    if (k.attrs == 0) return false;
    k.op_and_arity = static_cast<uint64_t>(op) << 8 | operands.size();
    for (size_t i = 0; i < operands.size(); ++i) k.in[i] = &operands[i].type();
    return true;
  }
  Entry& slot(const Entry& k) {
    uint64_t h = k.op_and_arity * 0x9e3779b97f4a7c15ull ^ k.attrs;
    for (const TensorType* t : k.in)
      h = (h ^ reinterpret_cast<uintptr_t>(t)) * 0xff51afd7ed558ccdull;
    return entries[(h >> 32) % kEntries];
  }
  static bool same(const Entry& a, const Entry& b) {
    return a.op_and_arity == b.op_and_arity && a.attrs == b.attrs && a.in[0] == b.in[0] &&
           a.in[1] == b.in[1] && a.in[2] == b.in[2];
  }
};
thread_local ShapeMemo t_shape_memo;  // (plain data: no destructor at thread exit)

// `checked_call`: a call whose operands the caller has checked (record_call_prechecked).
GraphNodePtr make_node(OpCode op, GraphOperands&& operands, SharedAttrs&& attrs,
                       const DebugInfo& debug, bool checked_call = false) {
  // The shape rule writes into one vector reused across recordings (per thread: function traces
  // may record on any thread).
  thread_local std::vector<TensorType> inferred;
  const Function* callee = op != OpCode::call ? nullptr
                           : checked_call     ? std::get<CallAttrs>(*attrs).callee.get()
                                              : fitting_callee(operands, *attrs);
  GraphOutputs types;
  std::span<const TensorType> outputs;  // (what the node's hash reads)
  ShapeMemo::Entry key;
  ShapeMemo::Entry* memo =
      !callee && ShapeMemo::key(op, operands, attrs, key) ? &t_shape_memo.slot(key) : nullptr;
  if (callee) {
    // A call's result types stay its callee's (which the node's attributes keep alive).
    types = GraphOutputs::borrowed(callee->interned_result_types());
    outputs = callee->result_types();
  } else if (memo && ShapeMemo::same(*memo, key)) {
    types = GraphOutputs::one(*memo->out);
    outputs = {memo->out, 1};
  } else {
    // The operand types the shape rule reads, side by side (a unary op's is read in place).
    InlineVec<TensorType, 3> in_types;
    std::span<const TensorType> in;
    if (operands.size() == 1) {
      in = {&operands[0].type(), 1};
    } else {
      in_types.reserve(operands.size());
      for (const GraphValue& v : operands) in_types.push_back(v.type());
      in = {in_types.data(), in_types.size()};
    }
    infer_types(op, in, *attrs, inferred);
    types = GraphOutputs(inferred);
    outputs = inferred;
    if (memo && types.size() == 1) {
      key.out = &types[0];
      *memo = key;
    }
  }
  uint64_t hash = graph_node_hash(op, attrs.hash(), outputs, operands.size());
  DebugInfo where = debug;
  if (!where.scope) where.scope = current_scope();
  const std::shared_ptr<TraceFrame>& frame = current_frame_ptr();
  // A function trace runs once per signature: it keeps where each op was recorded from.
  if (frame && where.call_site == 0) where.call_site = capture_call_site();
  GraphNodePtr node =
      new_node(op, hash, std::move(operands), std::move(types), std::move(attrs), where, frame);
  ops_recorded().add();
  return node;
}

}  // namespace

GraphNodePtr record_call_prechecked(GraphOperands&& operands, SharedAttrs attrs) {
  return make_node(OpCode::call, std::move(operands), std::move(attrs), {}, true);
}

namespace {

// Whether a layout op on x's value changes nothing: x is its result.
// Record-time folding of chains of one layout op (transpose, reshape, broadcast_in_dim): they
// only move elements, so the folded op computes the same bits, and a training step records
// fewer ops (the autodiff rules and the shape ops of the API make such chains all the time).
// Rewrites `operands` and `shared` (the attributes) so that the op starts from the chain's
// start, and returns that value instead when the op then changes nothing. The tape records the
// op as written, so gradients do not see this.
std::optional<GraphValue> fold_layout(OpCode op, GraphOperands& operands, SharedAttrs& shared) {
  GraphValue& x = operands[0];
  const GraphNode& inner = *x.node;
  // Only a node recorded in this trace context (and whose operand is too) is reached into:
  // another trace's values are lifted as inputs, not rewired. A parameter is never `op`.
  if (inner.op == op && inner.frame == current_frame_ptr() &&
      inner.operands[0].node->frame == inner.frame) {
    // The op as written is checked first, so that a bad one fails as it would unfolded.
    thread_local std::vector<TensorType> checked;
    infer_types(op, {&x.type(), 1}, *shared, checked);
    shared = compose_layout(op, *inner.attrs, *shared);
    GraphValue start = inner.operands[0];  // copied before x (the inner node's owner) changes
    x = std::move(start);
  }
  if (is_layout_identity(op, *shared, x.type())) return x;
  return std::nullopt;
}

}  // namespace

GraphValue record(OpCode op, GraphOperands&& operands, SharedAttrs attrs, DebugInfo debug) {
  // (A wrong number of operands is left to make_node's check.)
  // (The layout views, transpose, reshape and broadcast_in_dim: ir/op.h kView.)
  if (has_flag(op, kView) && has_flag(op, kLayout) && operands.size() == 1) {
    if (std::optional<GraphValue> same = fold_layout(op, operands, attrs)) return *same;
  }
  return GraphValue{make_node(op, std::move(operands), std::move(attrs), debug), 0};
}

GraphNodePtr make_leaf_node(const TensorType& type, std::shared_ptr<TraceFrame> frame) {
  // Leaves are made by the thousand (host scalars, new data): built in place, in one go.
  static const SharedAttrs kLeafAttrs(ParameterAttrs{0});
  uint64_t hash = graph_node_hash(OpCode::parameter, kLeafAttrs.hash(), {&type, 1}, 0);
  return new_node(OpCode::parameter, hash, GraphOperands{}, GraphOutputs{type},
                  SharedAttrs(kLeafAttrs), DebugInfo{}, std::move(frame));
}

GraphValue data_leaf(Literal value) {
  GraphNodePtr node = make_leaf_node(value.type, nullptr);
  node->data = make_pooled_unique<Literal>(std::move(value));
  return GraphValue{std::move(node), 0};
}

}  // namespace lazax
