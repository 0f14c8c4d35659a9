// VJP and JVP rules of the data-movement primitives: broadcast_in_dim, reshape, transpose,
// slice, dynamic_slice, dynamic_update_slice, concatenate, pad. Each is linear, so its JVP applies
// the op itself to the tangent and its VJP is the transpose (JAX's transpose rules).
#include <algorithm>

#include "common.h"

namespace lazax::autodiff {
using namespace detail;

namespace {

Tensor reshape_to(const Tensor& t, const Shape& s) {
  if (t.shape() == s) return t;
  return record_op(OpCode::reshape, {t}, ReshapeAttrs{s});
}

// The start-index operands of dynamic_slice (from 1) or dynamic_update_slice (from 2).
Tensors starts_from(const OpContext& c, size_t first) {
  return Tensors(c.inputs.begin() + static_cast<std::ptrdiff_t>(first), c.inputs.end());
}

Tensors with_starts(Tensors head, const Tensors& starts) {
  head.insert(head.end(), starts.begin(), starts.end());
  return head;
}

}  // namespace

// ---- broadcast_in_dim: sum over the new dims and over the dims that were stretched from 1 ----
Tensors vjp_broadcast_in_dim(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const auto& a = c.attr<BroadcastInDimAttrs>();
  const Shape& in = c.inputs[0].shape();
  IntList axes;
  for (int64_t d = 0; d < static_cast<int64_t>(a.shape.rank()); ++d) {
    auto it = std::find(a.broadcast_dimensions.begin(), a.broadcast_dimensions.end(), d);
    if (it == a.broadcast_dimensions.end()) {
      axes.push_back(d);
    } else {
      size_t i = static_cast<size_t>(it - a.broadcast_dimensions.begin());
      if (in[i] == 1 && a.shape[static_cast<size_t>(d)] != 1) axes.push_back(d);
    }
  }
  Tensor r = axes.empty() ? cts[0] : record_op(OpCode::reduce_sum, {cts[0]}, ReduceAttrs{axes});
  return {reshape_to(r, in)};
}
Tensors jvp_broadcast_in_dim(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined()) return {Tensor()};
  return {record_op(OpCode::broadcast_in_dim, {ts[0]}, c.attrs)};
}

// ---- reshape ----
Tensors vjp_reshape(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  return {reshape_to(cts[0], c.inputs[0].shape())};
}
Tensors jvp_reshape(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined()) return {Tensor()};
  return {record_op(OpCode::reshape, {ts[0]}, c.attrs)};
}

// ---- transpose: the inverse permutation ----
Tensors vjp_transpose(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const IntList& perm = c.attr<TransposeAttrs>().permutation;
  IntList inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return {record_op(OpCode::transpose, {cts[0]}, TransposeAttrs{inverse})};
}
Tensors jvp_transpose(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined()) return {Tensor()};
  return {record_op(OpCode::transpose, {ts[0]}, c.attrs)};
}

// ---- slice: pad the cotangent with zeros back to the operand's shape ----
Tensors vjp_slice(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !needs_ct(c, 0)) return {Tensor()};
  const auto& a = c.attr<SliceAttrs>();
  const Shape& in = c.inputs[0].shape();
  const Shape& out = cts[0].shape();
  PadAttrs p;
  for (size_t d = 0; d < in.rank(); ++d) {
    int64_t stride = a.strides.empty() ? 1 : a.strides[d];
    int64_t lo = a.start_indices[d];
    // The last element taken sits at lo + (n - 1) * stride; what follows it is high padding.
    int64_t covered = out[d] == 0 ? 0 : (out[d] - 1) * stride + 1;
    p.edge_padding_low.push_back(lo);
    p.edge_padding_high.push_back(in[d] - lo - covered);
    p.interior_padding.push_back(stride - 1);
  }
  Tensor zero = host_scalar(0.0, cts[0].dtype());
  return {record_op(OpCode::pad, {cts[0], zero}, std::move(p))};
}
Tensors jvp_slice(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined()) return {Tensor()};
  return {record_op(OpCode::slice, {ts[0]}, c.attrs)};
}

// ---- dynamic_slice: write the cotangent into zeros at the same (clamped) starts ----
Tensors vjp_dynamic_slice(const OpContext& c, const Tensors& cts) {
  Tensors out(c.inputs.size());
  if (!cts[0].defined() || !needs_ct(c, 0)) return out;
  Tensor zero = zeros_like_type(c.inputs[0]);
  out[0] = record_op(OpCode::dynamic_update_slice, with_starts({zero, cts[0]}, starts_from(c, 1)));
  return out;
}
Tensors jvp_dynamic_slice(const OpContext& c, const Tensors& ts) {
  if (!ts[0].defined()) return {Tensor()};
  return {record_op(OpCode::dynamic_slice, with_starts({ts[0]}, starts_from(c, 1)), c.attrs)};
}

// ---- dynamic_update_slice: the operand gets ct with a hole, the update the window ----
Tensors vjp_dynamic_update_slice(const OpContext& c, const Tensors& cts) {
  Tensors out(c.inputs.size());
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return out;
  const Tensors starts = starts_from(c, 2);
  const Tensor& update = c.inputs[1];
  if (needs_ct(c, 0))
    out[0] = record_op(OpCode::dynamic_update_slice,
                       with_starts({cts[0], zeros_like_type(update)}, starts));
  if (needs_ct(c, 1))
    out[1] = record_op(OpCode::dynamic_slice, with_starts({cts[0]}, starts),
                       DynamicSliceAttrs{update.sizes()});
  return out;
}
Tensors jvp_dynamic_update_slice(const OpContext& c, const Tensors& ts) {
  if ((!ts[0].defined() && !ts[1].defined()) || !is_floating(c.outputs[0].dtype()))
    return {Tensor()};
  return {record_op(OpCode::dynamic_update_slice,
                    with_starts({or_zeros(ts[0], c.inputs[0]), or_zeros(ts[1], c.inputs[1])},
                                starts_from(c, 2)))};
}

// ---- concatenate: each operand gets its slice of the cotangent ----
Tensors vjp_concatenate(const OpContext& c, const Tensors& cts) {
  Tensors out(c.inputs.size());
  if (!cts[0].defined()) return out;
  const int64_t dim = c.attr<ConcatenateAttrs>().dimension;
  const Shape& full_shape = cts[0].shape();
  int64_t offset = 0;
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    const int64_t n = c.inputs[k].size(dim);
    if (needs_ct(c, k)) {
      SliceAttrs s;
      for (size_t d = 0; d < full_shape.rank(); ++d) {
        bool here = static_cast<int64_t>(d) == dim;
        s.start_indices.push_back(here ? offset : 0);
        s.limit_indices.push_back(here ? offset + n : full_shape[d]);
        s.strides.push_back(1);
      }
      out[k] = record_op(OpCode::slice, {cts[0]}, std::move(s));
    }
    offset += n;
  }
  return out;
}
Tensors jvp_concatenate(const OpContext& c, const Tensors& ts) {
  if (all_undefined(ts) || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  Tensors parts;
  for (size_t k = 0; k < ts.size(); ++k) parts.push_back(or_zeros(ts[k], c.inputs[k]));
  return {record_op(OpCode::concatenate, parts, c.attrs)};
}

// ---- pad: undo the edge padding (negative low/high crops became zeros), then take every
// (interior + 1)-th element; the padding value gets the sum of everything else ----
Tensors vjp_pad(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return no_cts(c);
  const auto& a = c.attr<PadAttrs>();
  const Tensor& ct = cts[0];
  const size_t r = ct.shape().rank();
  PadAttrs unpad;
  for (size_t d = 0; d < r; ++d) {
    unpad.edge_padding_low.push_back(-a.edge_padding_low[d]);
    unpad.edge_padding_high.push_back(-a.edge_padding_high[d]);
    unpad.interior_padding.push_back(0);
  }
  Tensor zero = host_scalar(0.0, ct.dtype());
  Tensor unpadded = record_op(OpCode::pad, {ct, zero}, std::move(unpad));
  SliceAttrs s;
  for (size_t d = 0; d < r; ++d) {
    s.start_indices.push_back(0);
    s.limit_indices.push_back(unpadded.shape()[d]);
    s.strides.push_back(a.interior_padding[d] + 1);
  }
  Tensor operand_ct = record_op(OpCode::slice, {unpadded}, std::move(s));
  Tensors out(2);
  if (needs_ct(c, 0)) out[0] = operand_ct;
  if (needs_ct(c, 1)) {
    IntList all;
    for (size_t d = 0; d < r; ++d) all.push_back(static_cast<int64_t>(d));
    auto total = [&](const Tensor& t) {
      return all.empty() ? t : record_op(OpCode::reduce_sum, {t}, ReduceAttrs{all});
    };
    out[1] = total(ct) - total(operand_ct);
  }
  return out;
}
Tensors jvp_pad(const OpContext& c, const Tensors& ts) {
  if (all_undefined(ts) || !is_floating(c.outputs[0].dtype())) return {Tensor()};
  return {record_op(OpCode::pad, {or_zeros(ts[0], c.inputs[0]), or_zeros(ts[1], c.inputs[1])},
                    c.attrs)};
}

}  // namespace lazax::autodiff
