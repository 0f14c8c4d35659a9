// Shape rules named by the op table (one function per family). Each throws ShapeError or
// DTypeError naming the op, the operand types and what to do.
#pragma once
#include "lazax/ir/op.h"

namespace lazax::shape_rules {

#define LAZAX_DECLARE_RULE(name)                                           \
  void name(OpCode op, std::span<const TensorType> in, const Attrs& attrs, \
            std::vector<TensorType>& out);
LAZAX_DECLARE_RULE(parameter)
LAZAX_DECLARE_RULE(constant)
LAZAX_DECLARE_RULE(iota)
LAZAX_DECLARE_RULE(binary_numeric)
LAZAX_DECLARE_RULE(binary_float)
LAZAX_DECLARE_RULE(unary_numeric)
LAZAX_DECLARE_RULE(unary_float)
LAZAX_DECLARE_RULE(compare)
LAZAX_DECLARE_RULE(is_finite)
LAZAX_DECLARE_RULE(clamp)
LAZAX_DECLARE_RULE(bitwise)
LAZAX_DECLARE_RULE(select)
LAZAX_DECLARE_RULE(convert)
LAZAX_DECLARE_RULE(broadcast_in_dim)
LAZAX_DECLARE_RULE(reshape)
LAZAX_DECLARE_RULE(transpose)
LAZAX_DECLARE_RULE(slice)
LAZAX_DECLARE_RULE(dynamic_slice)
LAZAX_DECLARE_RULE(dynamic_update_slice)
LAZAX_DECLARE_RULE(concatenate)
LAZAX_DECLARE_RULE(pad)
LAZAX_DECLARE_RULE(reduce)
LAZAX_DECLARE_RULE(argmax)
LAZAX_DECLARE_RULE(dot_general)
LAZAX_DECLARE_RULE(gather)
LAZAX_DECLARE_RULE(scatter_add)
LAZAX_DECLARE_RULE(cumsum)
LAZAX_DECLARE_RULE(cummax)
LAZAX_DECLARE_RULE(rev)
LAZAX_DECLARE_RULE(sort)
LAZAX_DECLARE_RULE(reduce_bool)
LAZAX_DECLARE_RULE(random_bits)
LAZAX_DECLARE_RULE(call)
LAZAX_DECLARE_RULE(cond)
LAZAX_DECLARE_RULE(while_loop)
LAZAX_DECLARE_RULE(scan)
LAZAX_DECLARE_RULE(identity)
LAZAX_DECLARE_RULE(all_reduce)
LAZAX_DECLARE_RULE(all_gather)
LAZAX_DECLARE_RULE(reduce_scatter)
LAZAX_DECLARE_RULE(all_to_all)
LAZAX_DECLARE_RULE(collective_broadcast)
LAZAX_DECLARE_RULE(axis_index)
#undef LAZAX_DECLARE_RULE

}  // namespace lazax::shape_rules
