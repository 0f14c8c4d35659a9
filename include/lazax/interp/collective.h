// The collectives' semantics, shared by the interpreter's kernels and the cpu backend: each
// rearranges its operand into the contiguous blocks MPI moves (lazax/dist/collectives.h), calls
// it, and rearranges the result. In a world of one (or a group of one) each is the identity on
// its data (all_gather, reduce_scatter and all_to_all with one rank do not change the shape).
#pragma once
#include "lazax/ir/function.h"

namespace lazax::interp {

// Runs collective `node` (all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_broadcast) on `in` into `out`, whose buffer the caller allocated with the node's
// output type. Checks first that every rank of the group runs the same node on the same type.
void run_collective(const Node& node, const Literal& in, Literal& out);

}  // namespace lazax::interp
