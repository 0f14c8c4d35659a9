// Reference kernels of the layout ops: they move elements without arithmetic, so they copy
// element bytes and never look at the dtype. Semantics follow jax.lax.
#include <algorithm>

#include "common.h"
#include "kernels.h"

namespace lazax::interp {
namespace {

size_t rank_of(const Literal& l) { return l.shape().rank(); }
size_t u(int64_t i) { return static_cast<size_t>(i); }

// Start indices of dynamic_slice / dynamic_update_slice, from operands in[first..], each
// clamped so that a window of `sizes` fits in `shape` (lax semantics: never out of bounds).
Dims clamped_starts(const Node& node, std::span<const Literal> in, size_t first, const Shape& shape,
                    const Dims& sizes) {
  require(in.size() == first + shape.rank(), node, "expects one start index per operand dimension");
  Dims starts(shape.rank(), 0);
  for (size_t d = 0; d < shape.rank(); ++d) {
    const Literal& s = in[first + d];
    require(s.shape().rank() == 0, node,
            [&] { return "start indices must be scalars, got " + s.type.str(); });
    require(sizes[d] >= 0 && sizes[d] <= shape[d], node, "window does not fit the operand");
    starts[d] = std::clamp(scalar_index(s), int64_t{0}, shape[d] - sizes[d]);
  }
  return starts;
}

}  // namespace

// Operand dim i maps to result dim broadcast_dimensions[i]; operand dims of size 1 repeat.
std::vector<Literal> kernel_broadcast_in_dim(const Node& node, std::span<const Literal> in) {
  const auto& dims = node.attr<BroadcastInDimAttrs>().broadcast_dimensions;
  const Literal& x = in[0];
  Literal out = output(node);
  require(dims.size() == rank_of(x), node, "one broadcast dimension per operand dimension");
  for (size_t i = 0; i < dims.size(); ++i) {
    require(dims[i] >= 0 && u(dims[i]) < rank_of(out) &&
                (x.shape()[i] == 1 || x.shape()[i] == out.shape()[u(dims[i])]),
            node, "bad broadcast dimension");
  }
  Dims xs = x.shape().strides();
  for_each_index(out.shape(), [&](const Dims& idx, int64_t i) {
    int64_t src = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      if (x.shape()[d] != 1) src += idx[u(dims[d])] * xs[d];
    copy_element(out, i, x, src);
  });
  return {out};
}

// Row-major reshape is the identity on the buffer: the result shares it.
std::vector<Literal> kernel_reshape(const Node& node, std::span<const Literal> in) {
  require(in[0].numel() == node.outputs.at(0).numel() && in[0].dtype() == node.outputs[0].dtype,
          node, "cannot reshape " + in[0].type.str() + " to " + node.outputs[0].str());
  return {Literal(node.outputs[0], in[0].buffer)};
}

// Result dim i is operand dim permutation[i].
std::vector<Literal> kernel_transpose(const Node& node, std::span<const Literal> in) {
  const auto& perm = node.attr<TransposeAttrs>().permutation;
  const Literal& x = in[0];
  Literal out = output(node);
  require(perm.size() == rank_of(x) && out.numel() == x.numel(), node, "bad permutation");
  Dims xs = x.shape().strides();
  for_each_index(out.shape(), [&](const Dims& idx, int64_t i) {
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d) src += idx[d] * xs[u(perm[d])];
    copy_element(out, i, x, src);
  });
  return {out};
}

// Result element idx is operand element start + idx * stride (strides empty: all 1).
std::vector<Literal> kernel_slice(const Node& node, std::span<const Literal> in) {
  const auto& a = node.attr<SliceAttrs>();
  const Literal& x = in[0];
  Literal out = output(node);
  size_t r = rank_of(x);
  require(a.start_indices.size() == r && (a.strides.empty() || a.strides.size() == r), node,
          "one start index and stride per dimension");
  for (size_t d = 0; d < r; ++d) {
    int64_t stride = a.strides.empty() ? 1 : a.strides[d];
    int64_t n = out.shape()[d];
    require(a.start_indices[d] >= 0 && stride >= 1 &&
                (n == 0 || a.start_indices[d] + (n - 1) * stride < x.shape()[d]),
            node, "slice out of bounds");
  }
  Dims xs = x.shape().strides();
  for_each_index(out.shape(), [&](const Dims& idx, int64_t i) {
    int64_t src = 0;
    for (size_t d = 0; d < r; ++d)
      src += (a.start_indices[d] + idx[d] * (a.strides.empty() ? 1 : a.strides[d])) * xs[d];
    copy_element(out, i, x, src);
  });
  return {out};
}

// dynamic_slice(operand, start_0, ..., start_{r-1}); starts are clamped into range.
std::vector<Literal> kernel_dynamic_slice(const Node& node, std::span<const Literal> in) {
  const auto& sizes = node.attr<DynamicSliceAttrs>().slice_sizes;
  const Literal& x = in[0];
  Literal out = output(node);
  require(sizes.size() == rank_of(x) && out.shape() == Shape(sizes), node,
          "slice_sizes do not match the result");
  Dims starts = clamped_starts(node, in, 1, x.shape(), out.shape().dims());
  Dims xs = x.shape().strides();
  for_each_index(out.shape(), [&](const Dims& idx, int64_t i) {
    int64_t src = 0;
    for (size_t d = 0; d < idx.size(); ++d) src += (starts[d] + idx[d]) * xs[d];
    copy_element(out, i, x, src);
  });
  return {out};
}

// dynamic_update_slice(operand, update, start_0, ..., start_{r-1}): a copy of operand with
// update written at the (clamped) starts.
std::vector<Literal> kernel_dynamic_update_slice(const Node& node, std::span<const Literal> in) {
  require(in.size() >= 2, node, "expects operand, update and start indices");
  const Literal& x = in[0];
  const Literal& upd = in[1];
  require(x.type == node.outputs.at(0) && upd.dtype() == x.dtype() && rank_of(upd) == rank_of(x),
          node, "operand, update and result types do not fit");
  Dims starts = clamped_starts(node, in, 2, x.shape(), upd.shape().dims());
  Literal out = x.clone();
  Dims os = x.shape().strides();
  for_each_index(upd.shape(), [&](const Dims& idx, int64_t i) {
    int64_t dst = 0;
    for (size_t d = 0; d < idx.size(); ++d) dst += (starts[d] + idx[d]) * os[d];
    copy_element(out, dst, upd, i);
  });
  return {out};
}

std::vector<Literal> kernel_concatenate(const Node& node, std::span<const Literal> in) {
  int64_t dim = node.attr<ConcatenateAttrs>().dimension;
  Literal out = output(node);
  require(dim >= 0 && u(dim) < rank_of(out), node, "dimension out of range");
  int64_t total = 0;
  for (const auto& x : in) {
    require(x.dtype() == out.dtype() && rank_of(x) == rank_of(out), node, "operand types differ");
    total += x.shape()[u(dim)];
  }
  require(total == out.shape()[u(dim)], node, "operand sizes do not add up to the result");
  Dims os = out.shape().strides();
  int64_t offset = 0;
  for (const auto& x : in) {
    for_each_index(x.shape(), [&](const Dims& idx, int64_t i) {
      int64_t dst = 0;
      for (size_t d = 0; d < idx.size(); ++d) dst += (idx[d] + (d == u(dim) ? offset : 0)) * os[d];
      copy_element(out, dst, x, i);
    });
    offset += x.shape()[u(dim)];
  }
  return {out};
}

// pad(operand, padding_value): operand element i of dim d lands at low[d] + i * (interior[d]
// + 1); negative low/high crop (elements landing outside the result are dropped).
std::vector<Literal> kernel_pad(const Node& node, std::span<const Literal> in) {
  const auto& a = node.attr<PadAttrs>();
  const Literal& x = in[0];
  const Literal& value = in[1];
  Literal out = output(node);
  size_t r = rank_of(x);
  require(value.numel() == 1 && value.dtype() == x.dtype() && out.dtype() == x.dtype(), node,
          "padding value must be a scalar of the operand's dtype");
  require(a.edge_padding_low.size() == r && a.edge_padding_high.size() == r &&
              a.interior_padding.size() == r && rank_of(out) == r,
          node, "one padding per dimension");
  for (int64_t i = 0; i < out.numel(); ++i) copy_element(out, i, value, 0);
  Dims os = out.shape().strides();
  for_each_index(x.shape(), [&](const Dims& idx, int64_t i) {
    int64_t dst = 0;
    for (size_t d = 0; d < r; ++d) {
      int64_t pos = a.edge_padding_low[d] + idx[d] * (a.interior_padding[d] + 1);
      if (pos < 0 || pos >= out.shape()[d]) return;
      dst += pos * os[d];
    }
    copy_element(out, dst, x, i);
  });
  return {out};
}

}  // namespace lazax::interp
