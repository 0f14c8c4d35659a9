// Batching rules of the layout primitives: the batch dimension, at 0, is one more leading
// dimension that each op keeps in place (its attributes shifted by one).
#include "lazax/autodiff/batching.h"

namespace lazax::autodiff {

namespace {
IntList shifted(const IntList& v) {
  IntList out;
  for (int64_t d : v) out.push_back(d + 1);
  return out;
}
Shape with_batch(int64_t size, const Shape& s) {
  Shape out{size};
  for (int64_t d : s) out.dims().push_back(d);
  return out;
}
Batched one(Tensor t) { return {std::move(t), true}; }
}  // namespace

std::vector<Batched> batch_broadcast_in_dim(const BatchContext& c) {
  const auto& a = c.attr<BroadcastInDimAttrs>();
  IntList dims{0};
  for (int64_t d : a.broadcast_dimensions) dims.push_back(d + 1);
  return {one(record_op(OpCode::broadcast_in_dim, {&c.inputs[0].t},
                        BroadcastInDimAttrs{with_batch(c.size, a.shape), dims}))};
}

std::vector<Batched> batch_reshape(const BatchContext& c) {
  const auto& a = c.attr<ReshapeAttrs>();
  return {one(
      record_op(OpCode::reshape, {&c.inputs[0].t}, ReshapeAttrs{with_batch(c.size, a.new_sizes)}))};
}

std::vector<Batched> batch_transpose(const BatchContext& c) {
  IntList perm{0};
  for (int64_t d : c.attr<TransposeAttrs>().permutation) perm.push_back(d + 1);
  return {one(record_op(OpCode::transpose, {&c.inputs[0].t}, TransposeAttrs{perm}))};
}

std::vector<Batched> batch_slice(const BatchContext& c) {
  SliceAttrs a = c.attr<SliceAttrs>();
  a.start_indices.insert(a.start_indices.begin(), 0);
  a.limit_indices.insert(a.limit_indices.begin(), c.size);
  if (!a.strides.empty()) a.strides.insert(a.strides.begin(), 1);
  return {one(record_op(OpCode::slice, {&c.inputs[0].t}, a))};
}

std::vector<Batched> batch_concatenate(const BatchContext& c) {
  std::vector<Tensor> in;
  for (const Batched& b : c.inputs) in.push_back(materialize(b, c.size));
  return {one(record_op(OpCode::concatenate, in,
                        ConcatenateAttrs{c.attr<ConcatenateAttrs>().dimension + 1}))};
}

std::vector<Batched> batch_pad(const BatchContext& c) {
  PadAttrs a = c.attr<PadAttrs>();
  a.edge_padding_low.insert(a.edge_padding_low.begin(), 0);
  a.edge_padding_high.insert(a.edge_padding_high.begin(), 0);
  a.interior_padding.insert(a.interior_padding.begin(), 0);
  Tensor x = materialize(c.inputs[0], c.size);
  if (!c.inputs[1].batched) return {one(record_op(OpCode::pad, {&x, &c.inputs[1].t}, a))};
  // A padding value per example: padded with zeros, and a padded mask of the operand's elements
  // selects them over each example's value.
  Tensor zero = host_scalar(0, x.dtype()), no = host_scalar(0, DType::boolean);
  Tensor yes = ones(x.sizes(), DType::boolean);
  Tensor padded = record_op(OpCode::pad, {&x, &zero}, a);
  Tensor mask = record_op(OpCode::pad, {&yes, &no}, a);
  Tensor value = record_op(OpCode::broadcast_in_dim, {&c.inputs[1].t},
                           BroadcastInDimAttrs{padded.shape(), {0}});
  return {one(where(mask, padded, value))};
}

std::vector<Batched> batch_rev(const BatchContext& c) {
  return {one(
      record_op(OpCode::rev, {&c.inputs[0].t}, RevAttrs{shifted(c.attr<RevAttrs>().dimensions)}))};
}

// Reductions and scans along axes: the axes shift by one.
std::vector<Batched> batch_reduce_axes(const BatchContext& c) {
  return {one(record_op(c.op, {&c.inputs[0].t}, ReduceAttrs{shifted(c.attr<ReduceAttrs>().axes)}))};
}
std::vector<Batched> batch_reduce_sum(const BatchContext& c) { return batch_reduce_axes(c); }
std::vector<Batched> batch_reduce_max(const BatchContext& c) { return batch_reduce_axes(c); }
std::vector<Batched> batch_reduce_min(const BatchContext& c) { return batch_reduce_axes(c); }
std::vector<Batched> batch_reduce_prod(const BatchContext& c) { return batch_reduce_axes(c); }
std::vector<Batched> batch_reduce_and(const BatchContext& c) { return batch_reduce_axes(c); }
std::vector<Batched> batch_reduce_or(const BatchContext& c) { return batch_reduce_axes(c); }

namespace {
std::vector<Batched> arg_reduce(const BatchContext& c) {
  ArgmaxAttrs a = c.attr<ArgmaxAttrs>();
  ++a.axis;
  return as_batched(record_op(c.op, {&c.inputs[0].t}, a));
}
std::vector<Batched> cumulative(const BatchContext& c) {
  CumsumAttrs a = c.attr<CumsumAttrs>();
  ++a.axis;
  return as_batched(record_op(c.op, {&c.inputs[0].t}, a));
}
}  // namespace

std::vector<Batched> batch_argmax(const BatchContext& c) { return arg_reduce(c); }
std::vector<Batched> batch_argmin(const BatchContext& c) { return arg_reduce(c); }
std::vector<Batched> batch_cumsum(const BatchContext& c) { return cumulative(c); }
std::vector<Batched> batch_cumprod(const BatchContext& c) { return cumulative(c); }
std::vector<Batched> batch_cummax(const BatchContext& c) { return cumulative(c); }
std::vector<Batched> batch_cummin(const BatchContext& c) { return cumulative(c); }
std::vector<Batched> batch_sort(const BatchContext& c) {
  SortAttrs a = c.attr<SortAttrs>();
  ++a.axis;
  return as_batched(record_op(OpCode::sort, {&c.inputs[0].t}, a));
}

}  // namespace lazax::autodiff
