// Internal: the layout rewrites of simplify (transpose, reshape, broadcast_in_dim chains and
// dot_general of a transposed operand).
#pragma once
#include <optional>
#include <vector>

#include "lazax/ir/builder.h"

namespace lazax::passes::detail {

// The value node `n` (whose operands are `ops` in `b`) becomes, adding nodes to `b` if needed;
// nullopt when no rewrite applies.
std::optional<ValueRef> simplify_layout(Builder& b, const Node& n,
                                        const std::vector<ValueRef>& ops);

}  // namespace lazax::passes::detail
