// The object a Tensor handle points to, and `record_op`, the one way an op is recorded: every
// Tensor op, VJP/JVP rule and transform goes through it. (For the api layer and the autodiff
// layer above it; users include lazax/lazax.h.)
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/core/error.h"
#include "lazax/core/inline_vec.h"
#include "lazax/core/pool_allocator.h"
#include "lazax/trace/detail/deferred_values.h"
#include "lazax/trace/lazy_value.h"

namespace lazax {

// One entry of the autograd tape. The tape is the autodiff layer's (lazax/autodiff/tape.h); a
// handle only points at its entry.
struct GradNode;

class TensorImpl : public LazyValue {
 public:
  using LazyValue::LazyValue;
  bool requires_grad = false;
  std::shared_ptr<GradNode> grad_fn;  // null for leaves
  int32_t output_index = 0;
  Tensor grad;           // accumulated by backward() for leaves that require grad
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
  // Set while an assume_pure program reads this handle as a capture; `rebound_away` is set when
  // a Tensor variable holding it is assigned another value (Tensor::operator=), which may be the
  // variable the function reads, so the program's next call traces it again (autodiff/pure.h).
  bool pure_capture = false;
  bool rebound_away = false;
};

// Grad mode (thread-local): when off, ops record no tape entries.
bool grad_enabled();
void set_grad_enabled(bool on);

// Grad off for the body of a function trace (the program is pure; its VJP comes from the
// program). Unlike under the body's own NoGrad, an in-place update of a leaf that requires grad
// made under it is checked by each call of the program, against the caller's grad mode.
class TraceNoGrad {
 public:
  TraceNoGrad();
  ~TraceNoGrad();
  TraceNoGrad(const TraceNoGrad&) = delete;
  TraceNoGrad& operator=(const TraceNoGrad&) = delete;

 private:
  uint8_t previous_;
};
// Whether grad is off by a TraceNoGrad (not by a NoGrad opened since); by a NoGrad.
bool grad_off_for_trace();
bool grad_off_by_no_grad();

// The inputs of an op to record: the caller's handles by address (`{&a, &b}`: no reference counts
// taken, for the Tensor ops' hot path), or a list of handles (`{a, b}`, a std::vector<Tensor>).
// It is a parameter only: a braced list's array lives until the end of the call's full expression
// (GCC's init-list-lifetime warning does not know that the object dies before).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
class OpInputs {
 public:
  OpInputs() = default;
  OpInputs(std::initializer_list<const Tensor*> ts) : ptrs_(ts.begin()), size_(ts.size()) {}
  OpInputs(std::span<const Tensor* const> ts) : ptrs_(ts.data()), size_(ts.size()) {}
  OpInputs(std::initializer_list<Tensor> ts) : list_(ts.begin()), size_(ts.size()) {}
  OpInputs(const std::vector<Tensor>& ts) : list_(ts.data()), size_(ts.size()) {}
  OpInputs(std::span<const Tensor> ts) : list_(ts.data()), size_(ts.size()) {}
  size_t size() const { return size_; }
  const Tensor& operator[](size_t i) const { return ptrs_ ? *ptrs_[i] : list_[i]; }

 private:
  const Tensor* const* ptrs_ = nullptr;
  const Tensor* list_ = nullptr;
  size_t size_ = 0;
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The results of a recorded op, as new pending tensors. Most ops have one, and then the results
// convert to it: `Tensor y = record_op(OpCode::exp, {&x});`.
class OpResults {
 public:
  explicit OpResults(OpCode op) : op_(op) {}
  size_t size() const { return results_.size(); }
  Tensor& operator[](size_t i) { return results_[i]; }
  Tensor* begin() { return results_.begin(); }
  Tensor* end() { return results_.end(); }
  void push_back(Tensor t) { results_.push_back(std::move(t)); }
  operator Tensor() &&;               // the one result (throws when there are several)
  operator std::vector<Tensor>() &&;  // every result
  std::vector<Tensor> vec() && { return std::move(*this); }

 private:
  OpCode op_;
  InlineVec<Tensor, 1> results_;
};

// Records `op` on `inputs` with exactly `attrs` (no broadcasting or promotion: the Tensor ops do
// that first) and returns its results: checks it with the op's shape rule (throws, recording
// nothing, when it does not fit), adds a graph node to the current trace (the lazy graph, or the
// function being traced), and a tape entry when grad mode is on and an input requires grad.
// Cuts the pending graph first when it has grown past the limit.
OpResults record_op(OpCode op, const OpInputs& inputs, SharedAttrs attrs = {});

// Syncs the pending graph when it has grown past LAZAX_MAX_PENDING_NODES (record_op does this
// before recording; so does anything that records graph nodes by other means: assume_pure's calls).
void cut_pending_graph_if_large();

// The autograd tape is the autodiff layer's, which sits above this one (its VJP rules are written
// with Tensor ops). Recording reaches it through these hooks, which that layer installs when it is
// linked, as PyTorch's autograd registers its AutogradMeta factory with c10.
using CompositeRule =
    std::function<std::vector<Tensor>(const std::vector<Tensor>&, std::span<const Tensor>)>;
struct TapeHooks {
  // Attaches a tape entry to `outputs` (grad mode is on and an input requires grad).
  void (*record)(OpCode op, const SharedAttrs& attrs, const OpInputs& inputs,
                 std::span<const Tensor> outputs);
  // Called before an in-place op rebinds `t` while tape entries hold its handle as a saved input
  // (t.impl()->saved_by): they get a copy of the old value.
  void (*rebind_saved)(const Tensor& t);
  // Makes `outputs`, computed from `inputs` with grad mode off, the outputs of one tape entry
  // whose VJP and JVP are `vjp` and `jvp`: a composite's own derivative (softmax's, as JAX's
  // custom_jvp softmax). Each rule gets the cotangents (tangents) and the inputs as the tape
  // saved them; it returns one cotangent per input (one tangent per output), undefined for zero.
  std::vector<Tensor> (*attach_rules)(const std::vector<Tensor>& inputs,
                                      std::vector<Tensor>&& outputs, CompositeRule vjp,
                                      CompositeRule jvp);
};
void install_tape_hooks(const TapeHooks* hooks);
// The installed hooks (throws naming `op` when the autodiff layer is not linked).
const TapeHooks& tape_hooks(const char* op);

// A handle to a new pending value.
inline Tensor make_pending(GraphValue v) { return Tensor(make_pooled<TensorImpl>(std::move(v))); }

// The graph operand for `t` (throws a clear error naming `op` for an undefined tensor).
GraphValue operand(const Tensor& t, const char* op);

// Throws ConcretizationError for a tracer `t` read at the user's `loc`.
[[noreturn]] void throw_concretization(const Tensor& t, const char* what, const Loc& loc);
// Throws TracerBoolConversionError for a tracer `t` converted to bool (`if (t)`: C++ gives a
// conversion no caller location, so the message names the traced function and where it was made).
[[noreturn]] void throw_bool_conversion(const Tensor& t);

// copy_ that names `op` in errors and in the trace (a write-back standing for the in-place op
// `op` of a traced function).
Tensor& copy_as(Tensor& self, const Tensor& src, const char* op);

// Whether an in-place op may not update `t`: a leaf that requires grad, while grad mode is on
// (PyTorch: "a leaf Variable that requires grad is being used in an in-place operation").
bool in_place_forbidden(const Tensor& t);
// Throws the ValueError for that; `where` ("" or " inside ...") says where the update was.
[[noreturn]] void throw_in_place_on_leaf(const Tensor& t, const char* op, const std::string& where);

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
