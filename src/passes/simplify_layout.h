// Internal: the layout rewrites of simplify (transpose, reshape, broadcast_in_dim chains and
// dot_general of a transposed operand, a transposed dot_general, a sum of zero-padded values
// side by side as their concatenation).
#pragma once
#include <optional>
#include <vector>

#include "lazax/ir/builder.h"

namespace lazax::passes::detail {

// The value node `n` (whose operands are `ops` in `b`) becomes, adding nodes to `b` if needed;
// nullopt when no rewrite applies. `sole_reader[k]`: n is the only reader of its operand k (a
// rewrite that recomputes the operand another way is made only then).
std::optional<ValueRef> simplify_layout(Builder& b, const Node& n, const std::vector<ValueRef>& ops,
                                        const std::vector<bool>& sole_reader);

}  // namespace lazax::passes::detail
