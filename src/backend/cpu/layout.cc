// broadcast_in_dim and transpose as one strided copy: each result dim reads the operand with a
// stride (0 for a broadcast dim), the innermost dim in a tight loop, the outermost split over
// the OpenMP pool. Any dtype (by element size).
#include <cstring>

#include "kernels.h"

namespace lazax::cpu {
namespace {

struct StridedCopy : StepState {
  Dims sizes, strides;  // per result dim: its size, the operand's element stride
  size_t elem = 4;
};

template <class T>
void copy_dims(const T* src, T* dst, const Dims& sizes, const Dims& strides, size_t d) {
  int64_t n = sizes[d], st = strides[d];
  if (d + 1 == sizes.size()) {
    if (st == 1) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i * st];
    }
    return;
  }
  int64_t inner = 1;
  for (size_t k = d + 1; k < sizes.size(); ++k) inner *= sizes[k];
  for (int64_t i = 0; i < n; ++i) copy_dims(src + i * st, dst + i * inner, sizes, strides, d + 1);
}

template <class T>
void copy_all(const T* src, T* dst, const StridedCopy& c) {
  if (c.sizes.empty()) {
    dst[0] = src[0];
    return;
  }
  int64_t n = c.sizes[0], st = c.strides[0], inner = 1;
  for (size_t k = 1; k < c.sizes.size(); ++k) inner *= c.sizes[k];
  if (c.sizes.size() == 1) {
    copy_dims(src, dst, c.sizes, c.strides, 0);
    return;
  }
#pragma omp parallel for schedule(static) if (n * inner > 65536)
  for (int64_t i = 0; i < n; ++i) copy_dims(src + i * st, dst + i * inner, c.sizes, c.strides, 1);
}

}  // namespace

std::shared_ptr<StepState> plan_layout(const Node& node, std::span<const TensorType> in) {
  if (in.size() != 1 || node.outputs.size() != 1 || node.outputs[0].numel() == 0) return nullptr;
  auto c = std::make_shared<StridedCopy>();
  c->elem = dtype_size(in[0].dtype);
  if (c->elem != 1 && c->elem != 2 && c->elem != 4 && c->elem != 8) return nullptr;
  const Shape& out = node.outputs[0].shape;
  Dims st = in[0].shape.strides();
  c->sizes = Dims(out.begin(), out.end());
  c->strides = Dims(out.rank(), 0);
  if (const auto* b = std::get_if<BroadcastInDimAttrs>(&node.attrs)) {
    for (size_t i = 0; i < b->broadcast_dimensions.size(); ++i) {
      auto d = static_cast<size_t>(b->broadcast_dimensions[i]);
      if (in[0].shape[i] != 1) c->strides[d] = st[i];
    }
  } else if (const auto* t = std::get_if<TransposeAttrs>(&node.attrs)) {
    for (size_t i = 0; i < t->permutation.size(); ++i)
      c->strides[i] = st[static_cast<size_t>(t->permutation[i])];
  } else {
    return nullptr;
  }
  return c;
}

void run_layout(const Step& step, Frame& frame) {
  const auto& c = static_cast<const StridedCopy&>(*step.state);
  const Literal& x = frame[static_cast<size_t>(step.in[0])];
  const TensorType& t = step.node->outputs[0];
  Literal out(t, allocate_output(t.bytes()));
  const void* s = x.buffer.data();
  void* d = out.buffer.data();
  switch (c.elem) {
    case 1:
      copy_all(static_cast<const uint8_t*>(s), static_cast<uint8_t*>(d), c);
      break;
    case 2:
      copy_all(static_cast<const uint16_t*>(s), static_cast<uint16_t*>(d), c);
      break;
    case 4:
      copy_all(static_cast<const uint32_t*>(s), static_cast<uint32_t*>(d), c);
      break;
    default:
      copy_all(static_cast<const uint64_t*>(s), static_cast<uint64_t*>(d), c);
      break;
  }
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
