// Batching rules of the indexing primitives, as JAX writes them without operand batching dims:
// gather and scatter_add gain the batch as one more dimension (a window dimension when the
// indices are the same for every example, else one more index coordinate, the example's number,
// prepended to each index vector); dynamic_slice and dynamic_update_slice with per-example starts
// become a gather, and a scatter into zeros selected by a mask.
#include "lazax/autodiff/batching.h"

namespace lazax::autodiff {

namespace {

IntList shifted(const IntList& v, std::optional<int64_t> front = std::nullopt) {
  IntList out;
  if (front) out.push_back(*front);
  for (int64_t d : v) out.push_back(d + 1);
  return out;
}
Batched one(Tensor t) { return {std::move(t), true}; }

// Indices [size, ..., k] -> [size, ..., k + 1]: each index vector with its example's number first.
Tensor with_example_index(const Tensor& idx) {
  Shape s;
  for (int64_t d = 0; d + 1 < idx.dim(); ++d) s.dims().push_back(idx.size(d));
  s.dims().push_back(1);
  Tensor n = record_op(OpCode::iota, {}, IotaAttrs{idx.dtype(), s, 0});
  return cat({n, idx}, idx.dim() - 1);
}

// The start operands (from `first`) as [size, n] i64 indices, each batched or broadcast.
Tensor starts_of(const BatchContext& c, size_t first) {
  std::vector<Tensor> cols;
  for (size_t i = first; i < c.inputs.size(); ++i)
    cols.push_back(materialize(c.inputs[i], c.size).to(DType::i64));
  return stack(cols, 1);
}

bool starts_batched(const BatchContext& c, size_t first) {
  for (size_t i = first; i < c.inputs.size(); ++i)
    if (c.inputs[i].batched) return true;
  return false;
}

IntList range(int64_t from, int64_t to) {
  IntList out;
  for (int64_t d = from; d < to; ++d) out.push_back(d);
  return out;
}

}  // namespace

std::vector<Batched> batch_gather(const BatchContext& c) {
  const auto& a = c.attr<GatherAttrs>();
  const Batched &x = c.inputs[0], &idx = c.inputs[1];
  GatherAttrs g = a;
  if (!idx.batched) {
    // The same indices for every example: the batch is a whole window dimension, result dim 0.
    g.offset_dims = shifted(a.offset_dims, 0);
    g.collapsed_slice_dims = shifted(a.collapsed_slice_dims);
    g.start_index_map = shifted(a.start_index_map);
    g.slice_sizes.insert(g.slice_sizes.begin(), c.size);
    return {one(record_op(OpCode::gather, {&x.t, &idx.t}, g))};
  }
  // Batched indices: their dim 0 is the result's first batch dimension.
  g.offset_dims = shifted(a.offset_dims);
  if (!x.batched) return {one(record_op(OpCode::gather, {&x.t, &idx.t}, g))};
  // Both: each index vector also picks its example's slice of the operand (collapsed).
  Tensor ii = with_example_index(idx.t);
  g.collapsed_slice_dims = shifted(a.collapsed_slice_dims, 0);
  g.start_index_map = shifted(a.start_index_map, 0);
  g.slice_sizes.insert(g.slice_sizes.begin(), 1);
  return {one(record_op(OpCode::gather, {&x.t, &ii}, g))};
}

std::vector<Batched> batch_scatter_add(const BatchContext& c) {
  const auto& a = c.attr<ScatterAttrs>();
  Tensor x = materialize(c.inputs[0], c.size);
  Tensor u = materialize(c.inputs[2], c.size);
  ScatterAttrs s = a;
  if (!c.inputs[1].batched) {
    // The same indices: the batch is a whole window dimension of the updates and the operand.
    s.update_window_dims = shifted(a.update_window_dims, 0);
    s.inserted_window_dims = shifted(a.inserted_window_dims);
    s.scatter_dims_to_operand_dims = shifted(a.scatter_dims_to_operand_dims);
    return {one(record_op(OpCode::scatter_add, {&x, &c.inputs[1].t, &u}, s))};
  }
  // Per-example indices: each index vector also names its example's slice (inserted).
  Tensor ii = with_example_index(c.inputs[1].t);
  s.update_window_dims = shifted(a.update_window_dims);
  s.inserted_window_dims = shifted(a.inserted_window_dims, 0);
  s.scatter_dims_to_operand_dims = shifted(a.scatter_dims_to_operand_dims, 0);
  return {one(record_op(OpCode::scatter_add, {&x, &ii, &u}, s))};
}

std::vector<Batched> batch_dynamic_slice(const BatchContext& c) {
  const auto& a = c.attr<DynamicSliceAttrs>();
  const int64_t rank = static_cast<int64_t>(a.slice_sizes.size());
  if (!starts_batched(c, 1)) {
    // Only the operand is batched: the batch dimension starts at 0 and is taken whole.
    Tensor zero = host_scalar(0, c.inputs.size() > 1 ? c.inputs[1].t.dtype() : DType::i64);
    std::vector<Tensor> in{c.inputs[0].t, zero};
    for (size_t i = 1; i < c.inputs.size(); ++i) in.push_back(c.inputs[i].t);
    DynamicSliceAttrs d = a;
    d.slice_sizes.insert(d.slice_sizes.begin(), c.size);
    return {one(record_op(OpCode::dynamic_slice, in, d))};
  }
  // Per-example starts: a gather of one window per example, clamped into range as
  // dynamic_slice clamps its starts (gather's clip mode).
  Tensor x = materialize(c.inputs[0], c.size);
  Tensor idx = with_example_index(starts_of(c, 1));
  IntList sizes = a.slice_sizes;
  sizes.insert(sizes.begin(), 1);
  GatherAttrs g{range(1, rank + 1), {0}, range(0, rank + 1), sizes, GatherMode::clip};
  return {one(record_op(OpCode::gather, {&x, &idx}, g))};
}

std::vector<Batched> batch_dynamic_update_slice(const BatchContext& c) {
  Tensor x = materialize(c.inputs[0], c.size);
  Tensor u = materialize(c.inputs[1], c.size);
  if (!starts_batched(c, 2)) {
    std::vector<Tensor> in{
        x, u, host_scalar(0, c.inputs.size() > 2 ? c.inputs[2].t.dtype() : DType::i64)};
    for (size_t i = 2; i < c.inputs.size(); ++i) in.push_back(c.inputs[i].t);
    return {one(record_op(OpCode::dynamic_update_slice, in, NoAttrs{}))};
  }
  // Per-example starts: the update scattered into zeros at its clamped starts, and a mask of
  // the window (iota compared with the starts) that selects it over the operand.
  const int64_t rank = x.dim() - 1;
  std::vector<Tensor> starts;
  for (int64_t d = 0; d < rank; ++d) {
    Tensor s = materialize(c.inputs[2 + static_cast<size_t>(d)], c.size).to(DType::i64);
    Tensor lo = host_scalar(0, DType::i64);
    Tensor hi = host_scalar(static_cast<double>(x.size(d + 1) - u.size(d + 1)), DType::i64);
    starts.push_back(record_op(OpCode::clamp, {&lo, &s, &hi}, NoAttrs{}));
  }
  Tensor idx = with_example_index(stack(starts, 1));
  const bool is_bool = x.dtype() == DType::boolean;  // scatter_add takes no bools
  Tensor uu = is_bool ? u.to(DType::i32) : u;
  Tensor zero = zeros(x.sizes(), uu.dtype());
  ScatterAttrs s{range(1, rank + 1), {0}, range(0, rank + 1), GatherMode::clip};
  Tensor placed = record_op(OpCode::scatter_add, {&zero, &idx, &uu}, s);
  if (is_bool) placed = placed.to(DType::boolean);
  Tensor mask;
  for (int64_t d = 0; d < rank; ++d) {
    Tensor pos = record_op(OpCode::iota, {}, IotaAttrs{DType::i64, x.shape(), d + 1});
    const Shape& full = x.shape();
    Tensor lo = record_op(OpCode::broadcast_in_dim, {&starts[static_cast<size_t>(d)]},
                          BroadcastInDimAttrs{full, {0}});
    Tensor in = bitwise_and(
        ge(pos, lo), lt(pos, lo + host_scalar(static_cast<double>(u.size(d + 1)), DType::i64)));
    mask = mask.defined() ? bitwise_and(mask, in) : in;
  }
  return {one(where(mask, placed, x))};
}

}  // namespace lazax::autodiff
