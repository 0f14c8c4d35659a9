// Staged control flow: data-dependent branches and loops that become single `cond`, `while` and
// `scan` nodes, their bodies traced once into programs (JAX's lax.cond / while_loop / scan).
// Tensors the bodies capture from outside become extra operands; bodies must be pure (no
// in-place updates of outside tensors).
#pragma once
#include <functional>
#include <utility>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

using Tensors = std::vector<Tensor>;
using BranchFn = std::function<Tensors(const Tensors&)>;

// pred: a bool or integer scalar tensor (an integer is true when nonzero). Both branches are
// traced; their results must match in number, dtype and shape. Differentiable in forward and
// reverse mode.
Tensors cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
             const Tensors& operands);
// lax.switch: branches[clamp(index, 0, n-1)].
Tensors switch_(const Tensor& index, const std::vector<BranchFn>& branches,
                const Tensors& operands);

// Repeats body while cond_fn(carry) (a bool scalar) holds. Differentiable in forward mode only.
Tensors while_loop(const BranchFn& cond_fn, const BranchFn& body, const Tensors& init);

// body(carry, x) -> (new carry, y) over the leading dimension of xs; returns (final carry, ys
// stacked on a new leading dimension). Differentiable in forward and reverse mode.
using ScanFn = std::function<std::pair<Tensors, Tensors>(const Tensors& carry, const Tensors& x)>;
std::pair<Tensors, Tensors> scan(const ScanFn& body, const Tensors& init, const Tensors& xs,
                                 bool reverse = false);

// A loop with static bounds: a scan with no xs (differentiable).
Tensors fori_loop(int64_t lower, int64_t upper,
                  const std::function<Tensors(const Tensor& i, const Tensors& carry)>& body,
                  const Tensors& init);

}  // namespace lazax
