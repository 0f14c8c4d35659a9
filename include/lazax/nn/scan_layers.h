// nn::scan_layers(layers, h): runs identically shaped layers as one `scan` over their stacked
// parameters (control_flow.h). The layers' parameters are stacked on a new leading dimension,
// so the gradient of each layer's own parameters flows back through the stack.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazax/autodiff/control_flow.h"
#include "lazax/core/error.h"
#include "lazax/nn/module.h"

namespace lazax::nn {

namespace detail {
// Stacks layer i's flat parameters (flat[i]) into one tensor per parameter; checks that every
// layer has the parameters of the first (the message names the first that differs).
std::vector<Tensor> stack_layer_parameters(const std::vector<std::vector<Tensor>>& flat,
                                           const std::string& type_name);
}  // namespace detail

// M: a module with `Tensor forward(const Tensor&) const`, each layer called as call_module
// (under its precision policy, module.h). Runs h through layers[0], layers[1],
// ... as one scan; the result equals the unrolled loop. No layers: h unchanged. With a remat
// `policy` (remat.h), each layer's backward keeps only what the policy saves (stacked over the
// layers) and recomputes the rest in the reverse scan (control_flow.h's ScanOptions).
template <class M>
Tensor scan_layers(const std::vector<M>& layers, const Tensor& h,
                   std::shared_ptr<const RematPolicy> policy = nullptr) {
  if (layers.empty()) return h;
  std::vector<std::vector<Tensor>> flat;
  flat.reserve(layers.size());
  for (const M& l : layers) flat.push_back(tree_flatten(l));
  std::vector<Tensor> xs = detail::stack_layer_parameters(flat, layers[0].type_name());
  const M& like = layers[0];
  auto body = [&like](const Tensors& carry, const Tensors& x) {
    M layer = tree_unflatten(like, x);
    return std::make_pair(Tensors{call_module(layer, carry[0])}, Tensors{});
  };
  return scan(body, {h}, xs, ScanOptions{.remat = std::move(policy)}).first[0];
}

}  // namespace lazax::nn
