// The non-templated parts of the functional transforms.
#include "lazax/autodiff/transforms.h"

#include "engine.h"
#include "lazax/autodiff/tape.h"

namespace lazax::detail {

std::vector<Tensor> fresh_inputs(const std::vector<Tensor>& primals) {
  std::vector<Tensor> out;
  out.reserve(primals.size());
  for (const Tensor& p : primals) out.push_back(autodiff::transform_input(p));
  return out;
}

bool outer_tracking(const std::vector<Tensor>& primals) {
  if (!grad_enabled()) return false;
  for (const Tensor& p : primals)
    if (p.requires_grad()) return true;
  return false;
}

std::vector<Tensor> backward_flat(const std::vector<Tensor>& outs, const std::vector<Tensor>& cts,
                                  const std::vector<Tensor>& inputs, bool create_graph) {
  std::vector<Tensor> roots, root_cts;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].requires_grad()) continue;  // does not depend on any input
    if (!is_floating(outs[i].dtype())) continue;
    if (cts[i].defined() && cts[i].shape() != outs[i].shape())
      throw ShapeError("[vjp] cotangent " + cts[i].type_str() + " does not match output " +
                       std::to_string(i) + " of type " + outs[i].type_str());
    roots.push_back(outs[i]);
    root_cts.push_back(cts[i].defined() && cts[i].dtype() != outs[i].dtype()
                           ? cts[i].to(outs[i].dtype())
                           : cts[i]);
  }
  std::vector<Tensor> targets;
  std::vector<size_t> where;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].requires_grad()) {
      targets.push_back(inputs[i]);
      where.push_back(i);
    }
  }
  std::vector<Tensor> g;
  if (!roots.empty() && !targets.empty())
    g = autodiff::run_backward(roots, root_cts, targets,
                               {.retain_graph = true, .create_graph = create_graph});
  std::vector<Tensor> out(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) out[i] = autodiff::zeros_of(inputs[i].impl()->type());
  for (size_t k = 0; k < where.size() && k < g.size(); ++k) out[where[k]] = g[k];
  return out;
}

std::vector<Tensor> forward_flat(const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& tangents,
                                 const std::vector<Tensor>& outs) {
  std::vector<Tensor> in, tan;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad()) continue;
    in.push_back(inputs[i]);
    tan.push_back(tangents[i]);
  }
  return autodiff::run_forward(in, tan, outs);
}

std::vector<Tensor> detach_all(const std::vector<Tensor>& xs) {
  std::vector<Tensor> out;
  out.reserve(xs.size());
  for (const Tensor& x : xs) out.push_back(x.defined() ? x.detach() : x);
  return out;
}

void check_grad_output(const std::vector<Tensor>& out, const char* who) {
  const Tensor& v = out[0];
  if (!v.defined())
    throw ValueError(std::string("[") + who + "] the function returned an undefined tensor");
  if (v.numel() != 1 || v.dim() != 0) {
    throw ValueError(std::string("[") + who +
                     "] Gradient only defined for scalar-output functions. Output had shape: " +
                     v.shape().str() + " (" + v.type_str() +
                     "); reduce it (e.g. sum()) or use vjp with a cotangent");
  }
  if (!is_floating(v.dtype()))
    throw DTypeError(std::string("[") + who + "] the output must be floating point, got " +
                     v.type_str());
}

void check_grad_inputs(const std::vector<Tensor>& in, int argnum, const char* who) {
  for (const Tensor& t : in) {
    if (t.defined() && !is_floating(t.dtype())) {
      throw DTypeError(std::string("[") + who +
                       "] requires real-valued inputs (floating dtype) "
                       "for differentiation, but argument " +
                       std::to_string(argnum) + " has " + t.type_str() +
                       "; convert it with .to(DType::f32) or leave it out of "
                       "argnums");
    }
  }
}

void check_tangents(const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents) {
  if (primals.size() != tangents.size()) {
    throw ValueError("[jvp] primal and tangent arguments must have the same structure: " +
                     std::to_string(primals.size()) + " vs " + std::to_string(tangents.size()) +
                     " tensors");
  }
  for (size_t i = 0; i < primals.size(); ++i) {
    if (primals[i].impl()->type() != tangents[i].impl()->type()) {
      throw ValueError("[jvp] primal and tangent arguments must have equal types, got " +
                       primals[i].type_str() + " and " + tangents[i].type_str() + " at leaf " +
                       std::to_string(i));
    }
  }
}

std::vector<Tensor> attach_custom_vjp(
    const std::vector<Tensor>& inputs, const std::vector<Tensor>& outs,
    std::function<std::vector<Tensor>(const std::vector<Tensor>&)> bwd) {
  return attach_custom_vjp(
      inputs, outs,
      CustomVjpWithInputs([bwd = std::move(bwd)](const std::vector<Tensor>& cts,
                                                 std::span<const Tensor>) { return bwd(cts); }));
}

std::vector<Tensor> attach_custom_vjp(const std::vector<Tensor>& inputs,
                                      const std::vector<Tensor>& outs, CustomVjpWithInputs bwd) {
  return attach_custom_vjp(inputs, detach_all(outs), std::move(bwd));
}

std::vector<Tensor> attach_custom_vjp(const std::vector<Tensor>& inputs, std::vector<Tensor>&& outs,
                                      CustomVjpWithInputs bwd, std::shared_ptr<void> state,
                                      CustomJvp jvp) {
  // Results that nothing else holds and that are on no tape are used as they are.
  std::vector<Tensor> fresh = std::move(outs);
  for (Tensor& t : fresh) {
    if (!t.defined()) continue;
    const TensorImpl* impl = t.impl();
    if (t.impl_ptr().use_count() != 1 || impl->grad_fn || impl->requires_grad) t = t.detach();
  }
  bool any = false;
  for (const Tensor& t : inputs) any = any || t.requires_grad();
  if (!any || !grad_enabled()) return fresh;
  auto node = make_pooled<GradNode>();
  node->op = OpCode::optimization_barrier;
  node->sequence = next_grad_sequence();
  // (The engine checks that the VJP returns one cotangent per input.)
  if (!jvp) {
    jvp = [](const std::vector<Tensor>&, std::span<const Tensor>) -> std::vector<Tensor> {
      throw NotDifferentiableError(
          "[custom_vjp] can't apply forward-mode autodiff (jvp) to a custom_vjp function; define "
          "the function without custom_vjp for jvp");
    };
  }
  node->custom = make_pooled_unique<GradNode::CustomRules>(
      GradNode::CustomRules{std::move(bwd), std::move(jvp), std::move(state)});
  node->inputs.reserve(inputs.size());
  node->next.reserve(inputs.size());
  node->outputs.reserve(fresh.size());
  for (const Tensor& t : inputs) save_input(*node, t);
  for (size_t i = 0; i < fresh.size(); ++i)
    save_output(node, fresh[i], static_cast<int32_t>(i), /*keep=*/false);
  return fresh;
}

}  // namespace lazax::detail
