// Recording the autograd tape: which ops get a GradNode, and the Tensor methods that expose
// gradients. The backward walk itself (VJP rules) lives in the autodiff layer.
#include "lazax/autodiff/tape.h"

#include <atomic>

#include "lazax/autodiff/transforms.h"
#include "lazax/core/chain_release.h"
#include "lazax/trace/call_site.h"
#include "lazax/trace/scope.h"
#include "lazax/trace/trace_stack.h"

namespace lazax {
namespace {
std::atomic<uint64_t> g_sequence{0};

// Recording reaches the tape through the api layer's hooks (api/tensor_impl.h). They are
// installed when this file is linked, which every program that can make a tensor require grad
// does (Tensor::requires_grad_ is defined here).
std::vector<Tensor> attach_rules(const std::vector<Tensor>& inputs, std::vector<Tensor>&& outputs,
                                 CompositeRule vjp, CompositeRule jvp) {
  return detail::attach_custom_vjp(inputs, std::move(outputs), std::move(vjp), nullptr,
                                   std::move(jvp));
}
const TapeHooks kTapeHooks{&record_grad, &rebind_saved, &attach_rules};
[[maybe_unused]] const bool kTapeHooksInstalled = (install_tape_hooks(&kTapeHooks), true);
}  // namespace

uint64_t next_grad_sequence() { return g_sequence.fetch_add(1); }

uint64_t next_leaf_id() {
  static std::atomic<uint64_t> ids{0};
  return ids.fetch_add(1, std::memory_order_relaxed) + 1;
}

GradNode::~GradNode() {
  // The saved values go first (their grad_fn references point at the nodes the edges hold too),
  // then the edges hand the previous entries over to be freed one by one.
  release_saved_inputs(*this);
  outputs.clear();
  deferred.reset();
  out_cts.clear();
  custom.reset();
  ChainRelease<GradNode>::release_links(next,
                                        [](Edge& e) -> std::shared_ptr<GradNode>& { return e.fn; });
}

Tensor saved_copy(const Tensor& t) {
  TensorImpl* impl = t.impl();
  Tensor c = t.detach();
  c.impl()->requires_grad = impl->requires_grad;
  c.impl()->grad_fn = impl->grad_fn;
  c.impl()->output_index = impl->output_index;
  return c;
}

namespace {
bool is_leaf_requiring_grad(const TensorImpl& impl) { return impl.requires_grad && !impl.grad_fn; }
}  // namespace

void rebind_saved(const Tensor& t) {
  TensorImpl& impl = *t.impl();
  if (impl.saved_by.empty()) return;
  Tensor old = saved_copy(t);
  for (const TensorImpl::SavedBy& s : impl.saved_by) {
    s.node->inputs[s.slot] = old;  // (the copy is not registered)
    s.node->next[s.slot].registered = false;
  }
  impl.saved_by.clear();
}

void release_saved_inputs(GradNode& node) {
  for (uint32_t i = 0; i < node.inputs.size(); ++i) {
    GradNode::Edge& e = node.next[i];
    if (!e.registered) continue;
    auto& by = node.inputs[i].impl()->saved_by;
    for (size_t k = 0; k < by.size(); ++k) {
      if (by[k].node == &node && by[k].slot == i) {  // swap with the last and drop it
        by[k] = by[by.size() - 1];
        by.pop_back();
        break;
      }
    }
    e.registered = false;
  }
  node.inputs.clear();
}

void save_input(GradNode& node, const Tensor& t) {
  GradNode::Edge& e = node.next.emplace_back();
  if (!t.defined()) {
    node.inputs.emplace_back();
    return;
  }
  TensorImpl* impl = t.impl();
  // The handle itself. A leaf that requires grad is not registered: an in-place update of it
  // before backward is an error (engine.cc check_saved), as in PyTorch.
  if (!is_leaf_requiring_grad(*impl)) {
    impl->saved_by.push_back({&node, static_cast<uint32_t>(node.inputs.size())});
    e.registered = true;
  }
  node.inputs.push_back(t);
  e.version = impl->version;
  if (!impl->requires_grad) return;
  if (impl->grad_fn) {
    e.fn = impl->grad_fn;
    e.index = impl->output_index;
  } else {
    e.leaf_impl = impl;
    e.leaf_id = leaf_id_of(*impl);
  }
}

void GradNode::DeferredOutputs::add(size_t i, GraphValue v) {
  if (values_.size() <= i) values_.resize(i + 1);
  values_[i] = std::move(v);
  link();
}

void GradNode::DeferredOutputs::materialize() {
  for (size_t i = 0; i < values_.size(); ++i)
    if (values_[i].defined()) node_.outputs[i] = make_pending(std::move(values_[i]));
  values_.clear();
}

std::span<const Tensor> saved_outputs(const GradNode& node, std::vector<Tensor>& scratch) {
  if (!node.deferred || node.deferred->empty()) return {node.outputs.begin(), node.outputs.size()};
  scratch.clear();
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const GraphValue& v = node.deferred->value(i);
    scratch.push_back(v.defined() ? make_pending(v) : node.outputs[i]);
  }
  return scratch;
}

void save_output(const std::shared_ptr<GradNode>& node, const Tensor& t, int32_t index, bool keep) {
  if (keep && t.impl()->is_pending() && !t.impl()->is_tracer()) {
    if (!node->deferred) node->deferred = make_pooled_unique<GradNode::DeferredOutputs>(*node);
    node->deferred->add(node->outputs.size(), t.impl()->pending());
    node->outputs.emplace_back();
  } else if (keep) {
    node->outputs.push_back(t.detach());
  } else {
    node->outputs.emplace_back();
  }
  if (!is_floating(t.dtype())) return;
  TensorImpl* impl = t.impl();
  impl->requires_grad = true;
  impl->grad_fn = node;
  impl->output_index = index;
}

void record_grad(OpCode op, const SharedAttrs& attrs, const OpInputs& inputs,
                 std::span<const Tensor> outputs) {
  if (!grad_enabled()) return;
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i)
    any = any || (inputs[i].defined() && inputs[i].impl()->requires_grad);
  if (!any) return;
  bool float_out = false;
  for (const Tensor& t : outputs) float_out = float_out || is_floating(t.dtype());
  if (!float_out) return;  // integer and bool results carry no gradient
  auto node = make_pooled<GradNode>();
  node->op = op;
  node->attrs = attrs;
  node->sequence = next_grad_sequence();
  node->scope = current_scope();
  if (current_frame())  // (only traces keep call sites)
    if (const GraphValue& v = outputs[0].impl()->pending(); v.defined())
      node->call_site = v.node->debug.call_site;
  node->inputs.reserve(inputs.size());  // one allocation per list (recording's hot path)
  node->next.reserve(inputs.size());
  node->outputs.reserve(outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) save_input(*node, inputs[i]);
  // (An op whose rules never read its outputs keeps placeholders: ir/op.h kRulesSkipOutputs.)
  const bool keep = !has_flag(op, kRulesSkipOutputs);
  for (size_t i = 0; i < outputs.size(); ++i)
    save_output(node, outputs[i], static_cast<int32_t>(i), keep);
}

Tensor& Tensor::requires_grad_(bool on) {
  if (!defined()) throw ValueError("[requires_grad_] the tensor is undefined");
  if (on && !is_floating(dtype()))
    throw DTypeError("[requires_grad_] only floating-point tensors can require grad, got " +
                     type_str() + "; convert with .to(DType::f32) first");
  if (!on && impl_->grad_fn) {
    throw ValueError(
        "[requires_grad_] cannot turn off requires_grad on a non-leaf tensor; use "
        "detach()");
  }
  impl_->requires_grad = on;
  return *this;
}
}  // namespace lazax
