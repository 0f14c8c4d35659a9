// Reference-interpreter kernels: one function per op, named kernel_<op>, found from the op
// table by OpCode. Each takes the node (attributes, output types) and the operand values and
// returns the node's outputs. Families live in elementwise.cc, layout.cc, reduce.cc, dot.cc,
// indexing.cc, random.cc, control.cc.
#pragma once
#include <span>
#include <vector>

#include "lazax/ir/function.h"

namespace lazax::interp {

using Kernel = std::vector<Literal> (*)(const Node& node, std::span<const Literal> in);

#define LAZAX_DECLARE_KERNEL(name, attrs, arity, flags, rule) \
  std::vector<Literal> kernel_##name(const Node& node, std::span<const Literal> in);
LAZAX_OPS(LAZAX_DECLARE_KERNEL)
#undef LAZAX_DECLARE_KERNEL

}  // namespace lazax::interp
