// A bf16 dot_general whose only use is a convert to f32 writes f32 directly: oneDNN accumulates
// in f32 and stores f32, so the bf16 rounding of the dot's result and the separate convert step
// (a full read and write of the result) both go away (docs/PERFORMANCE.md, "bf16 dot + convert").
// The folded result is the f32 sum before rounding: within bf16's epsilon of the unfolded one,
// never further from the exact sum.
#include "kernels.h"

namespace lazax::cpu {

std::vector<int32_t> dot_convert_folds(const Function& f, std::span<const int32_t> group_of) {
  const size_t n = f.nodes().size();
  std::vector<int32_t> uses(n, 0), user(n, -1), fold(n, -1);
  for (size_t i = 0; i < n; ++i) {
    for (ValueRef v : f.nodes()[i].operands) {
      ++uses[static_cast<size_t>(v.node)];
      user[static_cast<size_t>(v.node)] = static_cast<int32_t>(i);
    }
  }
  for (ValueRef r : f.results()) uses[static_cast<size_t>(r.node)] += 2;  // never folded
  for (size_t i = 0; i < n; ++i) {
    const Node& dot = f.nodes()[i];
    if (dot.op != OpCode::dot_general || dot.outputs.size() != 1 || uses[i] != 1) continue;
    if (dot.outputs[0].dtype != DType::bf16 || group_of[i] >= 0) continue;
    const auto u = static_cast<size_t>(user[i]);
    const Node& cv = f.nodes()[u];
    const auto* at = std::get_if<ConvertAttrs>(&cv.attrs);
    if (cv.op != OpCode::convert || !at || at->dtype != DType::f32 || group_of[u] >= 0) continue;
    if (cv.outputs.size() != 1 || cv.outputs[0].dtype != DType::f32) continue;
    fold[i] = user[i];
  }
  return fold;
}

}  // namespace lazax::cpu
