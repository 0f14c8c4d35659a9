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

}  // namespace lazax
