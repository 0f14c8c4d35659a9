// One batching rule per primitive (vmap, DESIGN.md's transforms as interpreters over programs),
// kept beside the VJP and JVP rules and found by OpCode from the same op table: a row without a
// rule fails to link. A rule sees each operand with whether it carries the batch dimension,
// which vmap keeps at dim 0 of every batched value, and records the batched op with Tensor ops,
// so a vmapped program is lazy, traced or taped like any other code. Rows flagged
// kBatchByLoop use the documented fallback (batch_by_loop: the op once per example, stacked).
#pragma once
#include <span>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/api/tensor_impl.h"
#include "lazax/ir/function.h"
#include "lazax/ir/op.h"
#include "lazax/ir/shared_attrs.h"

namespace lazax::autodiff {

// A value inside vmap: `t` has the batch dimension at 0 when `batched`, else it is the same for
// every example.
struct Batched {
  Tensor t;
  bool batched = false;
};

// What a batching rule sees of one application of a primitive with a batched operand.
struct BatchContext {
  OpCode op;
  const SharedAttrs& attrs;
  std::span<const Batched> inputs;
  int64_t size;  // the batch size
  template <class A>
  const A& attr() const {
    return std::get<A>(*attrs);
  }
};

using BatchRule = std::vector<Batched> (*)(const BatchContext& c);

#define LAZAX_DECLARE_BATCH_RULE(name, attrs, arity, flags, rule) \
  std::vector<Batched> batch_##name(const BatchContext& c);
LAZAX_OPS(LAZAX_DECLARE_BATCH_RULE)
#undef LAZAX_DECLARE_BATCH_RULE

BatchRule batch_rule(OpCode op);

// The fallback: the op recorded once per example on the examples' slices, the results stacked.
std::vector<Batched> batch_by_loop(const BatchContext& c);
// Results of a recorded op as Batched values, all batched (or all not).
std::vector<Batched> as_batched(std::vector<Tensor> ts, bool batched = true);
// `b` with the batch dimension materialized (broadcast when unbatched) at dim 0.
Tensor materialize(const Batched& b, int64_t size);

// One op on Batched operands: its rule when an operand is batched, else the op as it is.
std::vector<Batched> batch_op(OpCode op, const SharedAttrs& attrs, std::span<const Batched> inputs,
                              int64_t size);

// Runs `f` with batching rules: one Batched per parameter -> one per result. Nodes whose
// operands are all unbatched are replayed as they are.
std::vector<Batched> batch_function(const Function& f, const std::vector<Batched>& args,
                                    int64_t size);

// Forgets the batched programs of calls traced so far (batch_call's cache); clear_program_caches
// (function_ad.h) calls it. Not while a program of theirs may still be recorded or run.
void clear_batched_call_cache();

}  // namespace lazax::autodiff
