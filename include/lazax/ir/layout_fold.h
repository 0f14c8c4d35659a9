// Chains of one layout view (transpose, reshape, broadcast_in_dim: kView | kLayout in op.h) fold
// into one op: the rules, in one place, for the two that fold them (the lazy graph as ops are
// recorded, trace/graph.cc, and the simplify pass, passes/simplify_layout.cc). They only move
// elements, so the folded op computes the same bits.
#pragma once
#include "lazax/ir/attrs.h"
#include "lazax/ir/op.h"

namespace lazax {

// The attributes of one `op` from the operand of `inner` that gives what `outer` gives when
// applied to inner's result (both `op`'s attributes): composed permutations, composed broadcast
// dimensions, the last reshape's sizes.
Attrs compose_layout(OpCode op, const Attrs& inner, const Attrs& outer);

// Whether `op` with `attrs` returns an operand of type `x` unchanged (an identity permutation,
// reshape or broadcast). False for any other op.
bool is_layout_identity(OpCode op, const Attrs& attrs, const TensorType& x);

}  // namespace lazax
