// Differentiating whole Functions (the functional VJP of DESIGN.md §3b): the joint program
// (forward, then backward by the per-primitive VJP rules) is traced once and split into a
// forward program (outputs + residuals) and a backward program (residuals + the primal inputs it
// reads + cotangents -> input cotangents). The partition saves what the backward needs, except
// what the backward can recompute cheaply: the primal inputs themselves (the caller passes them
// again), values computed from no input by elementwise/layout ops, and broadcasts, reshapes,
// transposes and converts of inputs (the backward recomputes them), chains of broadcasts,
// reshapes, transposes and widening converts of other forward values (the value they start from
// is saved instead), and elementwise arithmetic without transcendental work on values the
// backward has anyway.
#pragma once
#include <span>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/ir/function.h"
#include "lazax/ir/shared_attrs.h"

namespace lazax {
struct RematPolicy;
}

namespace lazax::autodiff {

// Runs `f` on tensors, op by op (recorded in the current context; taped when inputs require grad).
std::vector<Tensor> replay(const Function& f, const std::vector<Tensor>& args);

struct VjpPrograms {
  FunctionPtr fn;     // the function differentiated (forward mode through a call uses it)
  FunctionPtr joint;  // inputs ++ cotangents -> input cotangents (forward inlined)
  FunctionPtr fwd;    // inputs -> outputs ++ residuals
  // Parameters: residuals (fwd results num_outputs..) ++ inputs[bwd_inputs[0]], ... ++
  // cotangents of the float outputs. Results: cotangents of the wrt inputs. A caller passes the
  // inputs the forward was called with (the values at the time of the forward call).
  FunctionPtr bwd;
  int num_outputs = 0;
  int num_residuals = 0;
  std::vector<int> bwd_inputs;     // the primal inputs bwd reads, ascending (never residuals)
  std::vector<bool> offloaded;     // per residual: saved in host memory (a remat policy's offload)
  std::vector<bool> wrt;           // which inputs get cotangents
  std::vector<int32_t> wrt_index;  // the same as a list: input i of bwd's result k
  std::vector<bool> ct_outputs;    // which outputs take a cotangent (the floating ones)
  // CallAttrs{fwd} and CallAttrs{bwd}, made once and permanent (assume_pure records them on
  // every call).
  SharedAttrs fwd_call, bwd_call;
};

// The VJP split of `f` for differentiation w.r.t. the inputs flagged in `wrt`; built once per
// (program, wrt, policy) and cached. With a remat `policy` (remat.h), the forward saves only the
// values the policy calls saveable (and the backward needs); the backward program recomputes the
// rest from those and the inputs, reading its parameters through an optimization_barrier when
// `prevent_cse`.
const VjpPrograms& vjp_programs(const FunctionPtr& f, const std::vector<bool>& wrt,
                                const RematPolicy* policy = nullptr, bool prevent_cse = false);
// The same split built anew, not cached (the cache goes by the program's structure, which does
// not see debug information: saved_residuals splits a trace that kept its call sites). Its
// fwd_call and bwd_call are unset.
VjpPrograms build_vjp_programs(const FunctionPtr& f, const std::vector<bool>& wrt,
                               const RematPolicy* policy, bool prevent_cse);

struct OpContext;
// The rules of `call` and `cond` (used by rules/control.cc): differentiate through the callee
// or the branches with the programs above.
std::vector<Tensor> call_vjp(const OpContext& c, const std::vector<Tensor>& cts);
std::vector<Tensor> call_jvp(const OpContext& c, const std::vector<Tensor>& tangents);
std::vector<Tensor> cond_vjp(const OpContext& c, const std::vector<Tensor>& cts);
std::vector<Tensor> cond_jvp(const OpContext& c, const std::vector<Tensor>& tangents);
// scan's rule (scan_ad.cc): the body split by vjp_programs, run as a forward scan that stacks
// what each iteration's backward keeps and a backward scan the other way.
std::vector<Tensor> scan_vjp(const OpContext& c, const std::vector<Tensor>& cts);
// Records the scan `a` on `inputs` (carries, then xs). When an input requires grad, the forward
// scan also stacks what each iteration's backward keeps (what `policy` calls saveable, or lazax's
// default split without one), and one tape entry's VJP runs the backward scan, which recomputes
// the rest per iteration (its inputs through an optimization_barrier when `prevent_cse`). The
// counter ScanSavedBytes (core/metrics.h) adds up the bytes the forward scans stack so.
std::vector<Tensor> scan_with_vjp(const ScanAttrs& a, const std::vector<Tensor>& inputs,
                                  const RematPolicy* policy, bool prevent_cse);

// Forgets the VJP splits, JVP programs and batched call programs built so far (benchmarks that
// time a first step).
// Not while a program of theirs may still be recorded or run.
void clear_program_caches();

// (inputs ++ tangents of float inputs) -> (outputs ++ tangents of float outputs); cached.
FunctionPtr jvp_program(const FunctionPtr& f);

// Records a call of jvp_program(f) on `inputs` and `tangents` (one per input, undefined where
// zero) and returns the tangents of f's results (undefined for the non-floating ones): forward
// mode through a call of `f`, as the `call` op's rule and assume_pure's tape entries do it.
std::vector<Tensor> call_jvp(const FunctionPtr& f, std::span<const Tensor> inputs,
                             const std::vector<Tensor>& tangents);

}  // namespace lazax::autodiff
