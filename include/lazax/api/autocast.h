// A scoped mixed-precision region, like PyTorch's torch.autocast("cpu", dtype=torch.bfloat16):
// inside it, matmul (and so nn::Linear and attention's matmuls) of f32 operands converts them to
// the autocast dtype, multiplies there (oneDNN: bf16 inputs, f32 accumulation) and converts the
// result back to f32; every other op runs as written, in its operands' dtype (so softmax, norms,
// the loss, exp and log stay f32). The converts are traced into the program: under grad their
// VJPs convert the cotangents back, so gradients of f32 parameters are f32. docs/PRECISION.md
// has the table and how it differs from PyTorch's.
//
//   { lazax::Autocast ac(DType::bf16); loss = model(x); }
#pragma once
#include "lazax/core/dtype.h"

namespace lazax {

class Autocast {
 public:
  // bf16 turns autocast on, f32 turns it off (for a region inside an autocast one); any other
  // dtype throws a lazax::DTypeError. The previous setting comes back at the end of the scope.
  explicit Autocast(DType dtype);
  ~Autocast();
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;

 private:
  DType previous_;
};

// The dtype matmul computes f32 operands in on this thread: f32 outside any Autocast scope.
DType autocast_dtype();

}  // namespace lazax
