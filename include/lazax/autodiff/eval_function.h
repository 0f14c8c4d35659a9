// Evaluates a Function on tensors by replaying its nodes as primitives (record_op), so the
// result is lazy and on the tape: a program read from a file can be differentiated with grad,
// vjp or backward() like code written with tensor ops.
#pragma once
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/ir/function.h"

namespace lazax::autodiff {

// One tensor per parameter of `f` (types must match) -> one tensor per result. Throws
// ValueError/ShapeError/DTypeError naming the parameter that does not fit.
std::vector<Tensor> eval_function(const Function& f, const std::vector<Tensor>& args);

}  // namespace lazax::autodiff
