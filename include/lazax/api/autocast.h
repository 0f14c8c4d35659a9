// A scoped mixed-precision region, like PyTorch's torch.autocast("cpu", dtype=torch.bfloat16),
// with its CPU op lists: inside it, matmul (and so nn::Linear, whose bias is cast too, and
// attention's matmuls) of f32 operands, or of one f32 and one bf16 operand, converts them to the
// autocast dtype and multiplies there (oneDNN: bf16 inputs, f32 accumulation); the result stays
// bf16. cross_entropy (PyTorch's fp32 list) runs bf16 logits in f32. Every other op runs as
// written, with the usual promotion (bf16 + f32 is f32: a residual stream that starts f32 stays
// f32). The converts are traced into the program: under grad their VJPs convert the cotangents
// back, so gradients of f32 parameters are f32. docs/PRECISION.md has the table.
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
