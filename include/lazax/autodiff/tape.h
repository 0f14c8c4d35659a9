// The autograd tape: one GradNode per op applied to inputs of which at least one requires grad,
// recorded as data when the op is recorded (through the api layer's TapeHooks) and walked by the
// engine (engine.cc): backwards with the VJP rules, forwards with the JVP rules.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "lazax/api/tensor_impl.h"
#include "lazax/core/inline_vec.h"
#include "lazax/core/pool_allocator.h"
#include "lazax/trace/detail/deferred_values.h"

namespace lazax {

// One entry of the autograd tape: an op applied to inputs of which at least one requires grad.
// The autodiff layer walks these backwards (VJP rules) or forwards (JVP rules). The saved values
// are such that later in-place rebinding of the user's tensors does not change what the backward
// pass sees (see `inputs`). The fields the tape walks read come first.
struct GradNode {
  GradNode() = default;
  ~GradNode();  // frees a long tape iteratively (core/chain_release.h)
  GradNode(const GradNode&) = delete;
  GradNode& operator=(const GradNode&) = delete;
  OpCode op = OpCode::constant;
  bool released = false;        // saved values freed by backward(retain_graph=false)
  bool reaches_target = false;  // scratch of the backward walk (below)
  // Where a traced op was made (trace/call_site.h): its VJP's ops say the same.
  uint32_t call_site = 0;
  // Nodes made while a profiler scope was open keep it (the backward reopens it).
  const char* scope = nullptr;
  uint64_t sequence = 0;  // creation order, for a deterministic backward order
  // Scratch of the backward walk (autodiff/engine.cc), so that it needs no maps: the walk that
  // last visited this node, whether the node leads to a target (`reaches_target`), and the
  // cotangents of its outputs gathered so far.
  uint64_t walk = 0;
  // Where each input's cotangent goes: the producing node's output, or a leaf tensor.
  struct Edge {
    std::shared_ptr<GradNode> fn;
    int32_t index = 0;
    // The input is registered in its handle's saved_by (release_saved_inputs need not look at
    // the others' handles: a model's many parameters are not registered).
    bool registered = false;
    // Set when the input is a leaf that requires grad: the leaf, and its id (leaf_id_of). The
    // entry's saved input holds the leaf until backward releases the entry (a leaf that
    // requires grad is never rebound: see save_input), which then never runs again and is
    // keyed by the id only (a freed leaf's address may be taken by a new handle), so no weak
    // reference is needed.
    TensorImpl* leaf_impl = nullptr;
    uint64_t leaf_id = 0;
    uint64_t version = 0;  // the input's version when saved (checked for leaves)
  };
  InlineVec<Edge, 2> next;  // inline: most ops have one or two inputs
  // Saved values, inline for the usual one or two inputs and one output. An input is the
  // caller's handle itself (registered in its saved_by, so that an in-place op on it first
  // hands this entry a copy of the old value: see rebind_saved). An output is a detached copy
  // (the output handle points back at this entry), an undefined placeholder for an entry with
  // custom rules, or undefined with its graph value in `deferred` (save_output, saved_outputs).
  InlineVec<Tensor, 2> inputs;
  InlineVec<Tensor, 1> outputs;
  InlineVec<Tensor, 1> out_cts;
  // Saved outputs of a lazy-mode entry as graph values, without handles: a handle per output
  // of every taped op, alive from the forward to the backward, was a large part of the lazy
  // mode's memory and host time. A rule that reads them gets short-lived handles
  // (saved_outputs); a sync that comes first gives them handles here, as pending values.
  class DeferredOutputs final : public DeferredValues {
   public:
    explicit DeferredOutputs(GradNode& node) : DeferredValues(Unlinked{}), node_(node) {}
    // Output i's saved value is `v`.
    void add(size_t i, GraphValue v);
    bool empty() const { return values_.empty(); }
    // Output i's saved value (undefined where there is none).
    const GraphValue& value(size_t i) const {
      static const GraphValue kNone;
      return i < values_.size() ? values_[i] : kNone;
    }
    void materialize() override;

   private:
    GradNode& node_;
    InlineVec<GraphValue, 1> values_;  // parallel to node_.outputs
  };
  // (Apart: most entries save no outputs, kRulesSkipOutputs.)
  PooledPtr<DeferredOutputs> deferred;
  // Rules that replace the op's VJP / JVP (custom_vjp, assume_pure, and the identity nodes of
  // the transforms): vjp(cotangents, saved inputs) -> input cotangents, jvp(input tangents,
  // saved inputs) -> output tangents. Apart (most entries have none).
  struct CustomRules {
    std::function<std::vector<Tensor>(const std::vector<Tensor>&, std::span<const Tensor>)> vjp;
    std::function<std::vector<Tensor>(const std::vector<Tensor>&, std::span<const Tensor>)> jvp;
    // What the rules read, kept alive with them (so that a rule can capture a plain pointer to
    // it and fit in std::function's own storage instead of a heap block of its own).
    std::shared_ptr<void> state;
  };
  PooledPtr<CustomRules> custom;
  SharedAttrs attrs;  // the graph node's (ir/shared_attrs.h)
};

// A handle to the same value and the same place on the tape, which later in-place rebinding of
// `t` does not affect.
Tensor saved_copy(const Tensor& t);

// Called before an in-place op rebinds `t`: the tape entries that saved it get a copy of its
// current value and place on the tape, so that their backward sees the value they were given.
void rebind_saved(const Tensor& t);

// Drops `node`'s saved inputs (unregistering it from their saved_by lists).
void release_saved_inputs(GradNode& node);

// The id naming `impl` as a leaf of the tape, given on first use and never reused (the tape's
// walks key leaves by it rather than by address).
uint64_t next_leaf_id();
inline uint64_t leaf_id_of(TensorImpl& impl) {
  if (impl.leaf_id == 0) impl.leaf_id = next_leaf_id();
  return impl.leaf_id;
}

// Creation order of tape nodes (one counter for every kind of node).
uint64_t next_grad_sequence();

// Attaches a tape entry to `outputs` when grad mode is on and an input requires grad.
void record_grad(OpCode op, const SharedAttrs& attrs, const OpInputs& inputs,
                 std::span<const Tensor> outputs);

// Appends `t` to `node`'s saved inputs, with the edge its cotangent takes.
void save_input(GradNode& node, const Tensor& t);
// Appends `t` to `node`'s saved outputs and makes it output `node`'s output `index` on the tape
// (floating outputs only: the others carry no gradient). A pending value (not a tracer) is
// saved as its graph value (GradNode::deferred). Without `keep` the saved output is an
// undefined placeholder, for entries whose rules never read their outputs and need only their
// count: custom rules (assume_pure's forward would otherwise keep a value per output and step)
// and ops flagged kRulesSkipOutputs.
void save_output(const std::shared_ptr<GradNode>& node, const Tensor& t, int32_t index,
                 bool keep = true);

// `node`'s saved outputs as handles, for a rule to read: those held as graph values get new
// handles in `scratch` (freed by the caller after the rule).
std::span<const Tensor> saved_outputs(const GradNode& node, std::vector<Tensor>& scratch);

}  // namespace lazax
