// Differentiating whole Functions (the functional VJP of DESIGN.md §3b): the joint program
// (forward, then backward by the per-primitive VJP rules) is traced once and split into a
// forward program (outputs + residuals) and a backward program (residuals + cotangents -> input
// cotangents). The default partition saves what the backward needs.
#pragma once
#include <vector>

#include "lazax/ir/function.h"
#include "lazax/tensor.h"

namespace lazax::autodiff {

// Runs `f` on tensors, op by op (recorded in the current context; taped when inputs require grad).
std::vector<Tensor> replay(const Function& f, const std::vector<Tensor>& args);

struct VjpPrograms {
  FunctionPtr joint;              // inputs ++ cotangents -> input cotangents (forward inlined)
  FunctionPtr fwd;                // inputs -> outputs ++ residuals
  FunctionPtr bwd;                // residuals ++ cotangents of float outputs -> cotangents of wrt inputs
  int num_outputs = 0;
  int num_residuals = 0;
  std::vector<bool> wrt;          // which inputs get cotangents
  std::vector<bool> ct_outputs;   // which outputs take a cotangent (the floating ones)
};

// The VJP split of `f` for differentiation w.r.t. the inputs flagged in `wrt`; built once per
// (program, wrt) and cached.
const VjpPrograms& vjp_programs(const FunctionPtr& f, const std::vector<bool>& wrt);

struct OpContext;
// The rules of `call` and `cond` (used by rules/control.cc): differentiate through the callee
// or the branches with the programs above.
std::vector<Tensor> call_vjp(const OpContext& c, const std::vector<Tensor>& cts);
std::vector<Tensor> call_jvp(const OpContext& c, const std::vector<Tensor>& tangents);
std::vector<Tensor> cond_vjp(const OpContext& c, const std::vector<Tensor>& cts);
std::vector<Tensor> cond_jvp(const OpContext& c, const std::vector<Tensor>& tangents);
std::vector<Tensor> scan_vjp(const OpContext& c, const std::vector<Tensor>& cts);

// (inputs ++ tangents of float inputs) -> (outputs ++ tangents of float outputs); cached.
FunctionPtr jvp_program(const FunctionPtr& f);

}  // namespace lazax::autodiff
