// reduce_sum / reduce_max / reduce_min on f32 or bf16 (widened first, computed in f32 and
// rounded once: bf16_bits.h) over a contiguous block of axes: the operand is
// viewed as [outer, reduced, inner]. inner == 1 (the last axes: softmax, RMS norm) reduces each
// row with 8 independent accumulators (vectorized); otherwise rows of `inner` elements are
// combined elementwise. Sums accumulate in f64, as the reference interpreter's do, so results
// rarely differ from its in the last bit. Rows of the result are split over the OpenMP pool; each
// element's order of additions is fixed, so results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "bf16_bits.h"
#include "kernels.h"

namespace lazax::cpu {
namespace {

struct Reduce : StepState {
  int64_t outer = 1, red = 1, inner = 1;
  OpCode op = OpCode::reduce_sum;
  bool half = false;  // bf16 operand and result
};

inline float combine(OpCode op, float a, float b) {
  if (op == OpCode::reduce_sum) return a + b;
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (op == OpCode::reduce_max) return a > b || (a == b && !std::signbit(a)) ? a : b;
  return a < b || (a == b && std::signbit(a)) ? a : b;
}

float identity(OpCode op) {
  if (op == OpCode::reduce_sum) return 0.0f;
  return op == OpCode::reduce_max ? -INFINITY : INFINITY;
}

float sum_row(const float* x, int64_t n) {
  constexpr int kLanes = 8;
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += static_cast<double>(x[i + l]);
  double r = 0;
  for (double a : acc) r += a;
  for (; i < n; ++i) r += static_cast<double>(x[i]);
  return static_cast<float>(r);
}

float reduce_row(OpCode op, const float* x, int64_t n) {
  if (op == OpCode::reduce_sum) return sum_row(x, n);
  constexpr int kLanes = 8;
  float acc[kLanes];
  std::fill(acc, acc + kLanes, identity(op));
  int64_t i = 0;
  {
    for (; i + kLanes <= n; i += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] = combine(op, acc[l], x[i + l]);
  }
  float r = identity(op);
  for (float a : acc) r = combine(op, r, a);
  for (; i < n; ++i) r = combine(op, r, x[i]);
  return r;
}

}  // namespace

std::shared_ptr<StepState> plan_reduce(const Node& node, std::span<const TensorType> in) {
  if (node.op != OpCode::reduce_sum && node.op != OpCode::reduce_max &&
      node.op != OpCode::reduce_min)
    return nullptr;
  if (in.size() != 1 || in[0].numel() == 0) return nullptr;
  if (in[0].dtype != DType::f32 && in[0].dtype != DType::bf16) return nullptr;
  IntList axes = node.attr<ReduceAttrs>().axes;
  if (axes.empty()) return nullptr;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1) return nullptr;  // not one block
  auto r = std::make_shared<Reduce>();
  r->op = node.op;
  r->half = in[0].dtype == DType::bf16;
  const Shape& s = in[0].shape;
  for (int64_t d = 0; d < static_cast<int64_t>(s.rank()); ++d) {
    int64_t n = s[static_cast<size_t>(d)];
    if (d < axes[0]) {
      r->outer *= n;
    } else if (d <= axes[axes.size() - 1]) {
      r->red *= n;
    } else {
      r->inner *= n;
    }
  }
  return r;
}

void run_reduce(const Step& step, Frame& frame) {
  const auto& r = static_cast<const Reduce&>(*step.state);
  const Literal& in = frame[static_cast<size_t>(step.in[0])];
  const TensorType& t = step.node->outputs[0];
  Literal out(t, allocate_output(t.bytes()));
  std::vector<float> wide_x, wide_y;  // bf16: the operand widened, the result before rounding
  const float* x = r.half ? nullptr : in.data<float>();
  float* y = r.half ? nullptr : out.data<float>();
  if (r.half) {
    const auto* h = static_cast<const uint16_t*>(in.buffer.data());
    wide_x.resize(static_cast<size_t>(in.numel()));
    for (size_t i = 0; i < wide_x.size(); ++i) wide_x[i] = widen_bf16(h[i]);
    wide_y.resize(static_cast<size_t>(t.numel()));
    x = wide_x.data();
    y = wide_y.data();
  }
  const int64_t outer = r.outer, red = r.red, inner = r.inner;
  const OpCode op = r.op;
  if (inner == 1) {
#pragma omp parallel for schedule(static) if (outer * red > 65536)
    for (int64_t o = 0; o < outer; ++o) y[o] = reduce_row(op, x + o * red, red);
  } else {
#pragma omp parallel if (outer * red * inner > 65536)
    {
      std::vector<double> acc(op == OpCode::reduce_sum ? static_cast<size_t>(inner) : 0);
#pragma omp for schedule(static)
      for (int64_t o = 0; o < outer; ++o) {
        float* yo = y + o * inner;
        if (op == OpCode::reduce_sum) {
          std::fill(acc.begin(), acc.end(), 0.0);
          for (int64_t k = 0; k < red; ++k) {
            const float* xk = x + (o * red + k) * inner;
            for (int64_t i = 0; i < inner; ++i)
              acc[static_cast<size_t>(i)] += static_cast<double>(xk[i]);
          }
          for (int64_t i = 0; i < inner; ++i)
            yo[i] = static_cast<float>(acc[static_cast<size_t>(i)]);
        } else {
          std::fill(yo, yo + inner, identity(op));
          for (int64_t k = 0; k < red; ++k) {
            const float* xk = x + (o * red + k) * inner;
            for (int64_t i = 0; i < inner; ++i) yo[i] = combine(op, yo[i], xk[i]);
          }
        }
      }
    }
  }
  if (r.half) {
    auto* h = static_cast<uint16_t*>(out.buffer.data());
    for (size_t i = 0; i < wide_y.size(); ++i) h[i] = round_bf16(wide_y[i]);
  }
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
