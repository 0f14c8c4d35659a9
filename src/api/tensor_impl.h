// Internal to the api layer: the object a Tensor handle points to, and the recording helpers
// every op goes through.
#pragma once
#include <string>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/tensor.h"
#include "lazax/trace/lazy_value.h"

namespace lazax {

class TensorImpl : public LazyValue {
 public:
  using LazyValue::LazyValue;
};

// A handle to a new pending value.
inline Tensor make_pending(GraphValue v) { return Tensor(std::make_shared<TensorImpl>(std::move(v))); }

// The graph operand for `t` (throws a clear error naming `op` for an undefined tensor).
GraphValue operand(const Tensor& t, const char* op);

// Records `op` on `inputs` and returns its single output as a new tensor. Cuts the pending
// graph first when it has grown past the limit.
Tensor record_op(OpCode op, std::initializer_list<const Tensor*> inputs, Attrs attrs = NoAttrs{});
std::vector<Tensor> record_op_multi(OpCode op, const std::vector<Tensor>& inputs, Attrs attrs);

// "[op] " + message helpers.
[[noreturn]] void throw_shape(const std::string& op, const std::string& msg);

// Normalizes a possibly negative dim against `rank` (throws naming op when out of range).
int64_t norm_dim(int64_t d, int64_t rank, const char* op);

// A scalar tensor of `dtype` holding `v`: a constant node for the structural values 0 and 1,
// a data leaf otherwise (so that changing host scalars never cause recompiles).
Tensor host_scalar(double v, DType dtype);

// Broadcasts `t` to `shape` (NumPy rules, right-aligned); no-op when already that shape.
Tensor broadcast_to_shape(const Tensor& t, const Shape& shape, const char* op);

// dtype of an op on a and b (PyTorch promotion: bool < integer < floating, wider wins).
DType promote_types(DType a, DType b);

}  // namespace lazax
