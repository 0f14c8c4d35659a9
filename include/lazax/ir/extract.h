// Cutting programs apart: a new Function that computes chosen values of `f` from other chosen
// values of `f` (which become its parameters). Used to split a joint forward+backward program
// into a forward program (outputs + residuals) and a backward program.
#pragma once
#include <string>
#include <vector>

#include "lazax/ir/function.h"

namespace lazax {

// Throws ValueError if some output depends on a parameter of `f` that is not among `inputs`.
FunctionPtr extract_function(const Function& f, std::string name,
                             const std::vector<ValueRef>& inputs,
                             const std::vector<ValueRef>& outputs);

}  // namespace lazax
