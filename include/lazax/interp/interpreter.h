// The reference interpreter: executes a Function on host Literals, every primitive, every dtype
// the primitive allows. Simple loops, no cleverness: the oracle for every backend.
#pragma once
#include <span>
#include <vector>

#include "lazax/ir/function.h"

namespace lazax {

// Runs `f` on `args` (checked against the parameter types: ValueError naming the parameter).
std::vector<Literal> interpret(const Function& f, std::span<const Literal> args);
// The same, the arguments read in place.
std::vector<Literal> interpret(const Function& f, std::span<const Literal* const> args);
// Runs one node on its operand values with the reference kernel of its op (what an optimizing
// backend falls back to for an op it has no kernel of its own for).
std::vector<Literal> interpret_node(const Node& node, std::span<const Literal> operands);

}  // namespace lazax
