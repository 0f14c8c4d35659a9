// convert between f32 and bf16 as one parallel loop (the interpreter's kernel converts element
// by element through a call, and was half of a bf16 training step's kernel time). The rounding
// is bf16_bits.h's, the reference's bit for bit.
#include <cstdint>

#include "bf16_bits.h"
#include "kernels.h"

namespace lazax::cpu {
namespace {

struct Convert : StepState {
  bool to_bf16 = false;
};

}  // namespace

std::shared_ptr<StepState> plan_convert(const Node& node, std::span<const TensorType> in) {
  if (node.op != OpCode::convert || in.size() != 1 || node.outputs.size() != 1) return nullptr;
  const DType from = in[0].dtype, to = node.outputs[0].dtype;
  const bool down = from == DType::f32 && to == DType::bf16;
  if (!down && !(from == DType::bf16 && to == DType::f32)) return nullptr;
  auto s = std::make_shared<Convert>();
  s->to_bf16 = down;
  return s;
}

void run_convert(const Step& step, Frame& frame) {
  const auto& s = static_cast<const Convert&>(*step.state);
  const Literal& x = frame[static_cast<size_t>(step.in[0])];
  const TensorType& t = step.node->outputs[0];
  Literal out(t, allocate_output(t.bytes()));
  const int64_t n = t.numel();
  if (s.to_bf16) {
    const float* src = x.data<float>();
    auto* dst = static_cast<uint16_t*>(out.buffer.data());
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; ++i) dst[i] = round_bf16(src[i]);
  } else {
    const auto* src = static_cast<const uint16_t*>(x.buffer.data());
    auto* dst = static_cast<uint32_t*>(out.buffer.data());
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<uint32_t>(src[i]) << 16;
  }
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
