// Internal to the api layer: the object a Tensor handle points to, and the recording helpers
// every op goes through.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/core/pool_allocator.h"
#include "lazax/api/tensor.h"
#include "lazax/trace/deferred_values.h"
#include "lazax/trace/inline_vec.h"
#include "lazax/trace/lazy_value.h"

namespace lazax {

class TensorImpl;

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
  bool released = false;  // saved values freed by backward(retain_graph=false)
  bool leads = false;     // scratch of the backward walk (below)
  // Nodes made while a profiler scope was open keep it (the backward reopens it).
  const char* scope = nullptr;
  uint64_t sequence = 0;  // creation order, for a deterministic backward order
  // Scratch of the backward walk (autodiff/engine.cc), so that it needs no maps: the walk that
  // last visited this node, whether the node leads to a target (`leads`), and the cotangents of
  // its outputs gathered so far.
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
    uint64_t version = 0;            // the input's version when saved (checked for leaves)
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
  // the transforms): vjp(cotangents, saved inputs) -> input cotangents. Apart (most entries
  // have none).
  struct CustomRules {
    std::function<std::vector<Tensor>(const std::vector<Tensor>&, std::span<const Tensor>)> vjp;
    std::function<std::vector<Tensor>(const std::vector<Tensor>&)> jvp;
    // What the rules read, kept alive with them (so that a rule can capture a plain pointer to
    // it and fit in std::function's own storage instead of a heap block of its own).
    std::shared_ptr<void> state;
  };
  PooledPtr<CustomRules> custom;
  SharedAttrs attrs;  // the graph node's (ir/shared_attrs.h)
};

class TensorImpl : public LazyValue {
 public:
  using LazyValue::LazyValue;
  bool requires_grad = false;
  std::shared_ptr<GradNode> grad_fn;  // null for leaves
  int32_t output_index = 0;
  Tensor grad;  // accumulated by backward() for leaves that require grad
  uint64_t version = 0;  // bumped by every in-place op
  uint64_t leaf_id = 0;  // 0 until leaf_id_of gives it one
  // The tape entries holding this handle as a saved input (entry, input slot). Saving the
  // handle itself instead of a copy spares a handle per saved input on recording's hot path;
  // an in-place op gives these entries a copy of the old value first (rebind_saved).
  struct SavedBy {
    GradNode* node;
    uint32_t slot;
  };
  InlineVec<SavedBy, 1> saved_by;
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

// Grad mode (thread-local): when off, ops record no tape entries.
bool grad_enabled();
void set_grad_enabled(bool on);

// Attaches a tape entry to `outputs` when grad mode is on and an input requires grad.
void record_grad(OpCode op, const SharedAttrs& attrs, std::span<const Tensor* const> inputs,
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

// A handle to a new pending value.
inline Tensor make_pending(GraphValue v) { return Tensor(make_pooled<TensorImpl>(std::move(v))); }

// The graph operand for `t` (throws a clear error naming `op` for an undefined tensor).
GraphValue operand(const Tensor& t, const char* op);

// Records `op` on `inputs` and returns its single output as a new tensor. Cuts the pending
// graph first when it has grown past the limit.
Tensor record_op(OpCode op, std::initializer_list<const Tensor*> inputs, SharedAttrs attrs = {});
Tensor record_op(OpCode op, std::span<const Tensor* const> inputs, SharedAttrs attrs);
std::vector<Tensor> record_op_multi(OpCode op, const std::vector<Tensor>& inputs,
                                    SharedAttrs attrs);

// Throws ConcretizationError (TracerBoolConversionError when bool_conv) for a tracer `t`.
[[noreturn]] void throw_concretization(const Tensor& t, const char* what, const Loc& loc,
                                       bool bool_conv);

// "[op] " + message helpers.
[[noreturn]] void throw_shape(const std::string& op, const std::string& msg);

// Normalizes a possibly negative dim against `rank` (throws naming op when out of range).
int64_t norm_dim(int64_t d, int64_t rank, const char* op);

// A scalar tensor of `dtype` holding `v`: a constant node for the structural values 0 and 1,
// a data leaf otherwise (so that changing host scalars never cause recompiles).
Tensor host_scalar(double v, DType dtype);

// Broadcasts `t` to `shape` (NumPy rules, right-aligned); no-op when already that shape.
Tensor broadcast_to_shape(const Tensor& t, const Shape& shape, const char* op);

// dtype of an op on a and b (PyTorch promotion: bool < integer < floating, wider wins).
DType promote_types(DType a, DType b);
// PyTorch's result type of a binary op on tensors a and b: as promote_types, except that a 0-d
// tensor next to one with dimensions changes the dtype only when its category is higher
// (f16[3] + f64[] is f16, i32[3] + f64[] is f64, i32[3] + i64[] is i32).
DType result_type(const Tensor& a, const Tensor& b);

}  // namespace lazax
