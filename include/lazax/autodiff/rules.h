// One VJP rule and one JVP rule per primitive, written with lazax's own tensor ops: the backward
// of a lazy graph is itself lazy, the backward of a traced function is itself traced, and a rule's
// ops can be differentiated again (higher-order derivatives).
#pragma once
#include <span>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/ir/op.h"
#include "lazax/ir/shared_attrs.h"

namespace lazax::autodiff {

// What a rule sees of one application of a primitive.
struct OpContext {
  OpCode op;
  const SharedAttrs& attrs;
  std::span<const Tensor> inputs;   // primal inputs
  std::span<const Tensor> outputs;  // primal outputs
  template <class A>
  const A& attr() const {
    return std::get<A>(*attrs);
  }
};

// cts: one cotangent per output (undefined = zero). Returns one cotangent per input
// (undefined = zero, or the input is not differentiable).
using VjpRule = std::vector<Tensor> (*)(const OpContext& c, const std::vector<Tensor>& cts);
// tangents: one per input (undefined = zero). Returns one tangent per output (undefined = zero).
using JvpRule = std::vector<Tensor> (*)(const OpContext& c, const std::vector<Tensor>& tangents);

#define LAZAX_DECLARE_AD_RULES(name, attrs, arity, flags, rule)                       \
  std::vector<Tensor> vjp_##name(const OpContext& c, const std::vector<Tensor>& cts); \
  std::vector<Tensor> jvp_##name(const OpContext& c, const std::vector<Tensor>& tangents);
LAZAX_OPS(LAZAX_DECLARE_AD_RULES)
#undef LAZAX_DECLARE_AD_RULES

VjpRule vjp_rule(OpCode op);
JvpRule jvp_rule(OpCode op);

}  // namespace lazax::autodiff
