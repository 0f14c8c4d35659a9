// Batching rules of the elementwise primitives: every operand gets the batch dimension (an
// unbatched one broadcast, a batched scalar operand of select or clamp broadcast to the others'
// shape), then the op runs once on the whole batch.
#include "lazax/autodiff/batching.h"

namespace lazax::autodiff {

namespace {

// The per-example shape of an operand.
Shape example_shape(const Batched& b) {
  Shape s;
  for (int64_t d = b.batched ? 1 : 0; d < b.t.dim(); ++d) s.dims().push_back(b.t.size(d));
  return s;
}

// `b` as [size, shape...]: shape is the op's per-example shape, b's is that or a scalar.
Tensor to_full(const Batched& b, int64_t size, const Shape& shape) {
  Shape own = example_shape(b);
  if (b.batched && own == shape) return b.t;
  Shape full{size};
  for (int64_t d : shape) full.dims().push_back(d);
  IntList dims;
  if (b.batched) dims.push_back(0);
  for (size_t d = 0; d < own.rank(); ++d) dims.push_back(static_cast<int64_t>(d) + 1);
  return record_op(OpCode::broadcast_in_dim, {&b.t}, BroadcastInDimAttrs{full, dims});
}

std::vector<Batched> elementwise(const BatchContext& c) {
  Shape shape;
  for (const Batched& b : c.inputs) {
    Shape s = example_shape(b);
    if (s.rank() > shape.rank()) shape = s;
  }
  std::vector<Tensor> in;
  for (const Batched& b : c.inputs) in.push_back(to_full(b, c.size, shape));
  return as_batched(record_op(c.op, in, c.attrs));
}

}  // namespace

#define LAZAX_ELEMENTWISE_BATCH(name) \
  std::vector<Batched> batch_##name(const BatchContext& c) { return elementwise(c); }
LAZAX_ELEMENTWISE_BATCH(add)
LAZAX_ELEMENTWISE_BATCH(sub)
LAZAX_ELEMENTWISE_BATCH(mul)
LAZAX_ELEMENTWISE_BATCH(div)
LAZAX_ELEMENTWISE_BATCH(neg)
LAZAX_ELEMENTWISE_BATCH(abs)
LAZAX_ELEMENTWISE_BATCH(relu)
LAZAX_ELEMENTWISE_BATCH(sign)
LAZAX_ELEMENTWISE_BATCH(exp)
LAZAX_ELEMENTWISE_BATCH(log)
LAZAX_ELEMENTWISE_BATCH(log1p)
LAZAX_ELEMENTWISE_BATCH(expm1)
LAZAX_ELEMENTWISE_BATCH(tanh)
LAZAX_ELEMENTWISE_BATCH(logistic)
LAZAX_ELEMENTWISE_BATCH(sqrt)
LAZAX_ELEMENTWISE_BATCH(rsqrt)
LAZAX_ELEMENTWISE_BATCH(pow)
LAZAX_ELEMENTWISE_BATCH(atan2)
LAZAX_ELEMENTWISE_BATCH(max)
LAZAX_ELEMENTWISE_BATCH(min)
LAZAX_ELEMENTWISE_BATCH(sin)
LAZAX_ELEMENTWISE_BATCH(cos)
LAZAX_ELEMENTWISE_BATCH(erf)
LAZAX_ELEMENTWISE_BATCH(floor)
LAZAX_ELEMENTWISE_BATCH(round)
LAZAX_ELEMENTWISE_BATCH(rem)
LAZAX_ELEMENTWISE_BATCH(ceil)
LAZAX_ELEMENTWISE_BATCH(is_finite)
LAZAX_ELEMENTWISE_BATCH(erf_inv)
LAZAX_ELEMENTWISE_BATCH(exp2)
LAZAX_ELEMENTWISE_BATCH(tan)
LAZAX_ELEMENTWISE_BATCH(clamp)
LAZAX_ELEMENTWISE_BATCH(and_)
LAZAX_ELEMENTWISE_BATCH(or_)
LAZAX_ELEMENTWISE_BATCH(xor_)
LAZAX_ELEMENTWISE_BATCH(not_)
LAZAX_ELEMENTWISE_BATCH(shift_left)
LAZAX_ELEMENTWISE_BATCH(shift_right_logical)
LAZAX_ELEMENTWISE_BATCH(shift_right_arithmetic)
LAZAX_ELEMENTWISE_BATCH(compare)
LAZAX_ELEMENTWISE_BATCH(select)
LAZAX_ELEMENTWISE_BATCH(convert)
#undef LAZAX_ELEMENTWISE_BATCH

}  // namespace lazax::autodiff
