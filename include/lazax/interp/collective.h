// The collectives' semantics, shared by the interpreter's kernels and the cpu backend: each
// rearranges its operand into the contiguous blocks MPI moves (lazax/dist/collectives.h), calls
// it, and rearranges the result. In a world of one (or a group of one) each is the identity on
// its data (all_gather, reduce_scatter and all_to_all with one rank do not change the shape).
#pragma once
#include "lazax/dist/collectives.h"
#include "lazax/ir/function.h"

namespace lazax::interp {

// Runs collective `node` (all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_broadcast) on `in` into `out`, whose buffer the caller allocated with the node's
// output type. Checks first that every rank of the group runs the same node on the same type.
void run_collective(const Node& node, const Literal& in, Literal& out);

// The same, started and not waited for where MPI has a nonblocking form of the node's move (an
// all_reduce, or a reduce_scatter along the leading axis, of f32, f64 or integers): `out` holds
// the result once the Request's wait() returns. Other collectives run as run_collective does and
// return an inactive Request.
dist::Request start_collective(const Node& node, const Literal& in, Literal& out);

}  // namespace lazax::interp
