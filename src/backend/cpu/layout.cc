// The layout ops as strided copies: broadcast_in_dim, transpose and slice are one copy each (every
// result dim reads the operand with a stride, 0 for a broadcast dim, from a start offset);
// concatenate is one copy per operand into its place in the result; pad (no interior padding, no
// negative edges) fills the result with the padding value and copies the operand into it. The
// innermost dim is a tight loop (memcpy when both sides are contiguous), the outermost is split
// over the OpenMP pool. Any dtype (by element size).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels.h"

namespace lazax::cpu {
namespace {

// One copy: per dim of the region copied, its size and the element strides of the source and
// the destination; the region starts at the given element offsets.
struct Copy {
  Dims sizes, src_strides, dst_strides;
  int64_t src_offset = 0, dst_offset = 0;
};

struct LayoutPlan : StepState {
  std::vector<Copy> copies;  // one, or one per concatenate operand (operand i -> copies[i])
  bool fill = false;         // pad: fill the result with operand 1 first
  size_t elem = 4;
};

template <class T>
void copy_dims(const T* src, T* dst, const Copy& c, size_t d) {
  const int64_t n = c.sizes[d], ss = c.src_strides[d], ds = c.dst_strides[d];
  if (d + 1 == c.sizes.size()) {
    if (ss == 1 && ds == 1) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) copy_dims(src + i * ss, dst + i * ds, c, d + 1);
}

template <class T>
void copy_region(const T* src, T* dst, const Copy& c) {
  src += c.src_offset;
  dst += c.dst_offset;
  if (c.sizes.empty()) {
    dst[0] = src[0];
    return;
  }
  int64_t n = c.sizes[0], total = 1;
  for (int64_t s : c.sizes) total *= s;
  if (c.sizes.size() == 1 || n == 0) {
    copy_dims(src, dst, c, 0);
    return;
  }
#pragma omp parallel for schedule(static) if (total > 65536)
  for (int64_t i = 0; i < n; ++i)
    copy_dims(src + i * c.src_strides[0], dst + i * c.dst_strides[0], c, 1);
}

template <class T>
void run_typed(const Step& step, const LayoutPlan& p, const Frame& frame, void* out, int64_t n) {
  T* dst = static_cast<T*>(out);
  if (p.fill) {
    const T v = *static_cast<const T*>(frame[static_cast<size_t>(step.in[1])].buffer.data());
    std::fill(dst, dst + n, v);
  }
  for (size_t k = 0; k < p.copies.size(); ++k)
    copy_region(static_cast<const T*>(frame[static_cast<size_t>(step.in[k])].buffer.data()), dst,
                p.copies[k]);
}

Dims contiguous(const Shape& s) { return s.strides(); }

}  // namespace

std::shared_ptr<StepState> plan_layout(const Node& node, std::span<const TensorType> in) {
  if (in.empty() || node.outputs.size() != 1 || node.outputs[0].numel() == 0) return nullptr;
  auto p = std::make_shared<LayoutPlan>();
  p->elem = dtype_size(in[0].dtype);
  if (p->elem != 1 && p->elem != 2 && p->elem != 4 && p->elem != 8) return nullptr;
  const Shape& out = node.outputs[0].shape;
  const Dims out_st = contiguous(out);
  Copy c;
  c.sizes = Dims(out.begin(), out.end());
  c.dst_strides = out_st;
  c.src_strides = Dims(out.rank(), 0);
  if (const auto* b = std::get_if<BroadcastInDimAttrs>(&node.attrs)) {
    const Dims st = contiguous(in[0].shape);
    for (size_t i = 0; i < b->broadcast_dimensions.size(); ++i) {
      auto d = static_cast<size_t>(b->broadcast_dimensions[i]);
      if (in[0].shape[i] != 1) c.src_strides[d] = st[i];
    }
  } else if (const auto* t = std::get_if<TransposeAttrs>(&node.attrs)) {
    const Dims st = contiguous(in[0].shape);
    for (size_t i = 0; i < t->permutation.size(); ++i)
      c.src_strides[i] = st[static_cast<size_t>(t->permutation[i])];
  } else if (const auto* s = std::get_if<SliceAttrs>(&node.attrs)) {
    const Dims st = contiguous(in[0].shape);
    for (size_t i = 0; i < out.rank(); ++i) {
      const int64_t step = s->strides.empty() ? 1 : s->strides[i];
      c.src_strides[i] = st[i] * step;
      c.src_offset += s->start_indices[i] * st[i];
    }
  } else if (const auto* cat = std::get_if<ConcatenateAttrs>(&node.attrs)) {
    const auto axis = static_cast<size_t>(cat->dimension);
    int64_t at = 0;
    for (const TensorType& t : in) {
      Copy k;
      k.sizes = Dims(t.shape.begin(), t.shape.end());
      k.src_strides = contiguous(t.shape);
      k.dst_strides = out_st;
      k.dst_offset = at * out_st[axis];
      at += t.shape[axis];
      p->copies.push_back(std::move(k));  // (an empty operand copies nothing)
    }
    return p;
  } else if (const auto* pad = std::get_if<PadAttrs>(&node.attrs)) {
    // Interior padding and negative edges (a crop) stay with the interpreter's kernel.
    for (size_t i = 0; i < out.rank(); ++i) {
      if (pad->interior_padding[i] != 0 || pad->edge_padding_low[i] < 0 ||
          pad->edge_padding_high[i] < 0)
        return nullptr;
    }
    if (in[0].numel() == 0) return nullptr;
    c.sizes = Dims(in[0].shape.begin(), in[0].shape.end());
    c.src_strides = contiguous(in[0].shape);
    for (size_t i = 0; i < out.rank(); ++i) c.dst_offset += pad->edge_padding_low[i] * out_st[i];
    p->fill = true;
  } else {
    return nullptr;
  }
  p->copies.push_back(std::move(c));
  return p;
}

void run_layout(const Step& step, Frame& frame) {
  const auto& p = static_cast<const LayoutPlan&>(*step.state);
  const TensorType& t = step.node->outputs[0];
  Literal out(t, allocate_output(t.bytes()));
  void* d = out.buffer.data();
  const int64_t n = t.numel();
  switch (p.elem) {
    case 1:
      run_typed<uint8_t>(step, p, frame, d, n);
      break;
    case 2:
      run_typed<uint16_t>(step, p, frame, d, n);
      break;
    case 4:
      run_typed<uint32_t>(step, p, frame, d, n);
      break;
    default:
      run_typed<uint64_t>(step, p, frame, d, n);
      break;
  }
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
