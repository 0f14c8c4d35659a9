// gather and scatter_add of whole rows (an embedding lookup and its gradient): the operand is
// [N, row...], the indices [..., 1] pick rows of it, the updates (scatter) or results (gather)
// are [..., row...]. Rows are copied (gather, split over the pool by index) or added in index
// order (scatter_add, split over the pool by columns, so each element sums in the interpreter's
// order). Any other gather or scatter runs the interpreter's kernel.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.h"

namespace lazax::cpu {
namespace {

struct RowIndexing : StepState {
  int64_t rows = 0;     // N
  int64_t row_len = 0;  // elements per row
  int64_t count = 0;    // indices
  GatherMode mode = GatherMode::fill;
};

bool is_iota_from(const IntList& v, int64_t from, int64_t n) {
  if (static_cast<int64_t>(v.size()) != n) return false;
  for (int64_t i = 0; i < n; ++i)
    if (v[static_cast<size_t>(i)] != from + i) return false;
  return true;
}

bool integer_index(DType t) {
  return t == DType::i32 || t == DType::i64 || t == DType::u8 || t == DType::i8 || t == DType::u32;
}

// The row each index picks: -1 for an index out of [0, rows) in fill mode (a NaN row / dropped).
std::vector<int64_t> resolve_rows(const Literal& idx, const RowIndexing& k) {
  std::vector<int64_t> r(static_cast<size_t>(k.count));
  auto fill = [&]<class T>(const T* p) {
    for (int64_t i = 0; i < k.count; ++i) {
      // NOLINTNEXTLINE(bugprone-signed-char-misuse): i8 indices are signed, as the reference's
      auto s = static_cast<int64_t>(p[i]);
      if (k.mode == GatherMode::clip) {
        s = std::clamp<int64_t>(s, 0, k.rows - 1);
      } else if (s < 0 || s >= k.rows) {
        s = -1;
      }
      r[static_cast<size_t>(i)] = s;
    }
  };
  switch (idx.type.dtype) {
    case DType::i32:
      fill(idx.data<int32_t>());
      break;
    case DType::i64:
      fill(idx.data<int64_t>());
      break;
    case DType::u8:
      fill(idx.data<uint8_t>());
      break;
    case DType::i8:
      fill(idx.data<int8_t>());
      break;
    default:
      fill(idx.data<uint32_t>());
      break;
  }
  return r;
}

// Common checks: f32 operand [N, row...] with N > 0, integer indices [..., 1].
std::shared_ptr<RowIndexing> row_plan(const TensorType& x, const TensorType& idx, GatherMode m) {
  if (x.dtype != DType::f32 || x.shape.rank() < 1 || x.shape[0] == 0) return nullptr;
  if (!integer_index(idx.dtype) || idx.shape.rank() < 1 || idx.shape[idx.shape.rank() - 1] != 1)
    return nullptr;
  auto k = std::make_shared<RowIndexing>();
  k->rows = x.shape[0];
  k->row_len = x.shape.numel() / x.shape[0];
  k->count = idx.shape.numel();
  k->mode = m;
  return k;
}

// The result / updates shape of a row lookup: the index's batch dims, then the row's dims.
Shape rows_shape(const TensorType& x, const TensorType& idx) {
  Dims d(idx.shape.dims().begin(), idx.shape.dims().end() - 1);
  d.insert(d.end(), x.shape.dims().begin() + 1, x.shape.dims().end());
  return Shape(d);
}

}  // namespace

std::shared_ptr<StepState> plan_indexing(const Node& node, std::span<const TensorType> in) {
  if (node.outputs.size() != 1) return nullptr;
  if (const auto* g = std::get_if<GatherAttrs>(&node.attrs); g && in.size() == 2) {
    const TensorType &x = in[0], &idx = in[1];
    auto k = row_plan(x, idx, g->mode);
    if (!k) return nullptr;
    const auto r = static_cast<int64_t>(x.shape.rank());
    const auto batch = static_cast<int64_t>(idx.shape.rank()) - 1;
    IntList sizes(x.shape.dims().begin(), x.shape.dims().end());
    sizes[0] = 1;
    if (g->start_index_map != IntList{0} || g->collapsed_slice_dims != IntList{0} ||
        g->slice_sizes != sizes || !is_iota_from(g->offset_dims, batch, r - 1) ||
        node.outputs[0] != TensorType{x.dtype, rows_shape(x, idx)})
      return nullptr;
    return k;
  }
  if (const auto* s = std::get_if<ScatterAttrs>(&node.attrs); s && in.size() == 3) {
    const TensorType &x = in[0], &idx = in[1], &upd = in[2];
    auto k = row_plan(x, idx, s->mode);
    if (!k) return nullptr;
    const auto r = static_cast<int64_t>(x.shape.rank());
    const auto batch = static_cast<int64_t>(idx.shape.rank()) - 1;
    if (s->scatter_dims_to_operand_dims != IntList{0} || s->inserted_window_dims != IntList{0} ||
        !is_iota_from(s->update_window_dims, batch, r - 1) ||
        upd != TensorType{x.dtype, rows_shape(x, idx)} || node.outputs[0] != x)
      return nullptr;
    return k;
  }
  return nullptr;
}

void run_indexing(const Step& step, Frame& frame) {
  const auto& k = static_cast<const RowIndexing&>(*step.state);
  const Literal& x = frame[static_cast<size_t>(step.in[0])];
  const std::vector<int64_t> rows = resolve_rows(frame[static_cast<size_t>(step.in[1])], k);
  const TensorType& t = step.node->outputs[0];
  Literal out(t, allocate_output(t.bytes()));
  const float* src = x.data<float>();
  float* dst = out.data<float>();
  const auto len = static_cast<size_t>(k.row_len);
  if (step.node->op == OpCode::gather) {
#pragma omp parallel for schedule(static) if (k.count * k.row_len > 65536)
    for (int64_t i = 0; i < k.count; ++i) {
      float* to = dst + static_cast<size_t>(i) * len;
      const int64_t r = rows[static_cast<size_t>(i)];
      if (r < 0) {
        std::fill(to, to + len, NAN);
      } else {
        std::memcpy(to, src + static_cast<size_t>(r) * len, len * sizeof(float));
      }
    }
  } else {
    std::memcpy(dst, src, t.bytes());
    const float* upd = frame[static_cast<size_t>(step.in[2])].data<float>();
    // Columns split over the pool; each column adds its updates in index order.
    const int64_t chunk = 256;
    const int64_t chunks = (k.row_len + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (k.count * k.row_len > 65536 && chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
      const auto c0 = static_cast<size_t>(c * chunk);
      const size_t c1 = std::min(len, c0 + static_cast<size_t>(chunk));
      for (int64_t i = 0; i < k.count; ++i) {
        const int64_t r = rows[static_cast<size_t>(i)];
        if (r < 0) continue;
        float* to = dst + static_cast<size_t>(r) * len;
        const float* from = upd + static_cast<size_t>(i) * len;
        for (size_t j = c0; j < c1; ++j) to[j] += from[j];
      }
    }
  }
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
