#include "lazax/trace/trace_stack.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "lazax/core/error.h"
#include "lazax/core/metrics.h"
#include "lazax/trace/lower.h"

namespace lazax {
const std::shared_ptr<TraceFrame> detail::kNoFrame;

namespace {
thread_local std::vector<std::shared_ptr<TraceFrame>> t_stack;
thread_local bool t_suppress_rebind_notes = false;

// Keeps detail::t_top_frame on the stack's last entry (after every change of the stack).
void update_top() { detail::t_top_frame = t_stack.empty() ? nullptr : &t_stack.back(); }

void restore(TraceFrame& f) {
  t_suppress_rebind_notes = true;
  for (auto& m : f.mutations) {
    if (m.original_pending.defined()) {
      m.target->set_pending(m.original_pending, ValueOwner(m.target));
    } else {
      m.target->set_data(m.original_data);
    }
  }
  t_suppress_rebind_notes = false;
}
}  // namespace

TraceScope::TraceScope(std::string name, std::string where) {
  frame_ = std::make_shared<TraceFrame>();
  frame_->name = std::move(name);
  frame_->where = std::move(where);
  frame_->depth = static_cast<int>(t_stack.size()) + 1;
  t_stack.push_back(frame_);
  update_top();
  metrics::counter("FunctionTraces").add();
}

void TraceScope::close() {
  if (closed_) return;
  closed_ = true;
  auto it = std::find(t_stack.begin(), t_stack.end(), frame_);
  if (it != t_stack.end()) t_stack.erase(it);
  update_top();
  frame_->alive = false;
  restore(*frame_);
  // The frame's nodes point at the frame (for LeakedTracerError), and the frame's lists at its
  // nodes: drop the lists, or each ended trace would keep itself alive as a cycle.
  frame_->params.clear();
  frame_->captures.clear();
  frame_->capture_index.clear();
  frame_->mutations.clear();
  frame_->mutation_index.clear();
}

TraceScope::~TraceScope() { close(); }

GraphValue add_trace_param(const TensorType& type) {
  auto& f = current_frame_ptr();
  if (!f) throw ValueError("[trace] no function trace is open");
  auto node = make_leaf_node(type, f);
  f->params.push_back(node);
  return GraphValue{node, 0};
}

std::string describe_trace(const TraceFrame& f) {
  return "the function '" + f.name + "' (traced at " + f.where + ")";
}

void add_trace_note(Error& e, const TraceFrame& f) {
  std::string note = "while tracing " + describe_trace(f);
  if (std::string_view(e.what()).find(note) == std::string_view::npos) e.add_note(note);
}

void check_not_leaked(const GraphNode& node, const char* op) {
  if (node.frame && !node.frame->alive) {
    throw LeakedTracerError(
        std::string("[") + op + "] this value is a tracer of " + describe_trace(*node.frame) +
        ", and that trace has ended: the value escaped it (stored in a global or a captured "
        "variable, or returned through a side channel). Return it from the function instead "
        "(see docs/ERRORS.md#leaked-tracer).");
  }
}

namespace {
[[gnu::noinline, gnu::cold]] void throw_leaked(const GraphNode& node, const char* op) {
  check_not_leaked(node, op);
}

// A value from outside the current frame: lifted to an implicit input (once per value).
[[gnu::noinline]] GraphValue lift(LazyValue& v, const ValueOwner& owner, const GraphValue& g,
                                  const std::shared_ptr<TraceFrame>& f) {
  auto it = f->capture_index.find(&v);
  if (it != f->capture_index.end()) return GraphValue{f->captures[it->second].placeholder, 0};
  auto node = make_leaf_node(g.type(), f);
  f->capture_index[&v] = f->captures.size();
  f->captures.push_back({owner.get(), node});
  return GraphValue{node, 0};
}
}  // namespace

GraphValue use_value(LazyValue& v, const ValueOwner& owner, const char* op) {
  GraphValue g = v.graph_value();
  const auto& f = current_frame_ptr();
  if (g.node->frame == f) return g;  // (the usual case: lazy mode, or a value of this trace)
  if (g.node->frame && !g.node->frame->alive) throw_leaked(*g.node, op);
  if (!f) return g;
  return lift(v, owner, g, f);
}

void note_rebind(LazyValue& v, const ValueOwner& owner) {
  if (t_suppress_rebind_notes) return;
  TraceFrame* f = current_frame();
  if (!f) return;
  const GraphValue& cur = v.pending();
  bool has_value = cur.defined() || v.data().buffer.defined();
  if (!has_value) return;  // a new value being made, not a rebinding
  bool outside = !cur.defined() || cur.node->frame.get() != f;
  bool frame_input =
      cur.defined() && cur.node->frame.get() == f && cur.node->op == OpCode::parameter;
  if (!outside && !frame_input) return;
  if (f->mutation_index.count(&v)) return;
  f->mutation_index[&v] = f->mutations.size();
  f->mutations.push_back({owner.get(), cur, v.data()});
}

void note_rebind_op(const LazyValue& v, const char* op) {
  TraceFrame* f = current_frame();
  if (!f) return;
  auto it = f->mutation_index.find(&v);
  if (it == f->mutation_index.end()) return;
  TraceFrame::Mutation& m = f->mutations[it->second];
  if (!m.op) m.op = op;
}

FunctionPtr build_traced_function(TraceFrame& f, const std::vector<GraphValue>& outputs) {
  // Results: outputs, then the current values of mutated values (lifted if from outside).
  std::vector<GraphValue> results;
  auto lift = [&](const GraphValue& g) -> GraphValue {
    if (g.node->frame.get() == &f) return g;
    // An outside value returned unchanged: a capture keyed by its node.
    for (const auto& c : f.captures)
      if (c.source->pending().node == g.node || c.source->graph_value().node == g.node)
        return GraphValue{c.placeholder, 0};
    throw ValueError("[trace] function '" + f.name +
                     "' returns a value from outside the trace that it never used; return a "
                     "value computed inside it");
  };
  results.reserve(outputs.size() + f.mutations.size());
  for (const auto& o : outputs) results.push_back(lift(o));
  for (auto& m : f.mutations)
    results.push_back(
        lift(m.target->pending().defined() ? m.target->pending() : m.target->graph_value()));
  // Parameters: the explicit inputs, then the captures.
  std::vector<GraphNode*> params;
  params.reserve(f.params.size() + f.captures.size());
  for (const GraphNodePtr& p : f.params) params.push_back(p.get());
  for (const auto& c : f.captures) params.push_back(c.placeholder.get());
  std::string name = f.name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "f_" + name;
  return lower(std::move(name), params, results);
}

}  // namespace lazax
