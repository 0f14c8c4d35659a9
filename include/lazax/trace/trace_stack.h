// The stack of traces. With no function trace open, ops record into the lazy graph. Inside a
// TraceScope they record into a function trace: nodes belong to the innermost open frame, values
// from outside (module parameters, outer tracers) are lifted to implicit inputs the first time
// they are used, and in-place rebinding of outside values is remembered so the call can write it
// back. A frame that ended is dead: its values are leaked tracers and using them is an error.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/trace/lazy_value.h"

namespace lazax {

struct TraceFrame {
  std::string name;   // the traced function, for error messages
  std::string where;  // "file:line" of the trace's creation
  int depth = 0;
  bool alive = true;
  std::vector<GraphNodePtr> params;  // explicit inputs, in order
  struct Capture {
    std::shared_ptr<LazyValue> source;  // read afresh on every call
    GraphNodePtr placeholder;
  };
  std::vector<Capture> captures;
  std::unordered_map<const LazyValue*, size_t> capture_index;
  // Outside values rebound inside the trace: restored at the end, written back after each call.
  struct Mutation {
    std::shared_ptr<LazyValue> target;
    GraphValue original_pending;
    Literal original_data;
    const char* op = nullptr;  // the first in-place op noted for it (note_rebind_op)
  };
  std::vector<Mutation> mutations;
  std::unordered_map<const LazyValue*, size_t> mutation_index;
};

// Pushes a frame for the lifetime of the scope.
class TraceScope {
 public:
  TraceScope(std::string name, std::string where);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  TraceFrame& frame() { return *frame_; }
  const std::shared_ptr<TraceFrame>& frame_ptr() const { return frame_; }
  // Ends the trace early (restores mutated outside values); the destructor then only pops.
  void close();

 private:
  std::shared_ptr<TraceFrame> frame_;
  bool closed_ = false;
};

namespace detail {
// The innermost open frame's entry in the thread's frame stack (null when none is open): a
// plain pointer, read inline on every recorded op (the stack itself is a thread_local with a
// destructor, whose every access goes through an initialization check).
inline thread_local const std::shared_ptr<TraceFrame>* t_top_frame = nullptr;
extern const std::shared_ptr<TraceFrame> kNoFrame;
}  // namespace detail

// The innermost open frame, or null in lazy mode.
inline TraceFrame* current_frame() {
  return detail::t_top_frame ? detail::t_top_frame->get() : nullptr;
}
inline const std::shared_ptr<TraceFrame>& current_frame_ptr() {
  return detail::t_top_frame ? *detail::t_top_frame : detail::kNoFrame;
}

// A new explicit input of the current frame.
GraphValue add_trace_param(const TensorType& type);

// The value of `v` as an operand in the current context: checks for leaked tracers, lifts
// outside values into the current frame as implicit inputs.
// `owner` owns `v` (kept by the frame when lifted).
GraphValue use_value(LazyValue& v, const ValueOwner& owner, const char* op);

// Called by LazyValue::set_pending: remembers rebinding of outside values inside a trace.
void note_rebind(LazyValue& v, const ValueOwner& owner);

// Names the in-place op (a string literal) that just rebound `v`, when that was a mutation of
// the current frame and the first one of `v`: the call that writes it back names it in errors.
void note_rebind_op(const LazyValue& v, const char* op);

// Builds the traced Function of the frame: explicit params, then captures; results `outputs`
// (lifted into the frame if they come from outside), then the mutated outside values' new values.
FunctionPtr build_traced_function(TraceFrame& f, const std::vector<GraphValue>& outputs);

// "the function 'name' (traced at file:line)": how errors name a trace.
std::string describe_trace(const TraceFrame& f);

// Notes on `e`, raised while `f` was being traced, "while tracing <describe_trace(f)>", unless
// its message names that trace already (ConcretizationError does). Nested traces add a note
// each, innermost first.
void add_trace_note(Error& e, const TraceFrame& f);

// Throws LeakedTracerError if `node` belongs to a dead frame (names where it was traced).
void check_not_leaked(const GraphNode& node, const char* op);

}  // namespace lazax
