// Lowering: the part of a graph reachable from some values becomes a Function, the one IR. Its
// leaves (parameter nodes: data leaves, a function trace's inputs) become the Function's
// parameters, in the order the caller gives; every other node becomes one node, after its
// operands; the values become its results. `sync` lowers the lazy graph on a cache miss
// (runtime/context.cc), a function trace lowers its frame's graph when it ends (trace_stack.cc).
#pragma once
#include <span>
#include <string>

#include "lazax/ir/function.h"
#include "lazax/trace/graph.h"

namespace lazax {

// The Function `name` that computes `results` from `params`: walks the graph back from
// `results`, stopping at leaves, each of which must be in `params` (else an internal error).
FunctionPtr lower(std::string name, std::span<GraphNode* const> params,
                  std::span<const GraphValue> results);

// The same when the caller has walked the graph already (sync gathers its cache key as it walks):
// `nodes` are the nodes reachable from `results` that are not leaves, each after its operands,
// and every leaf reached is in `params`. Numbers the nodes in their walk scratch (topo_index).
FunctionPtr lower_walked(std::string name, std::span<GraphNode* const> params,
                         std::span<GraphNode* const> nodes, std::span<const GraphValue> results);

}  // namespace lazax
