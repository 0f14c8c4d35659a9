// The batching rule of each op, found by OpCode from the op table's rows, and the two helpers
// every rule shares: materializing the batch dimension and the per-example fallback.
#include <array>
#include <string>

#include "lazax/autodiff/batching.h"
#include "lazax/core/error.h"

namespace lazax::autodiff {
namespace {
const std::array<BatchRule, kNumOps> kBatch = {{
#define LAZAX_BATCH_ROW(name, attrs, arity, flags, rule) &batch_##name,
    LAZAX_OPS(LAZAX_BATCH_ROW)
#undef LAZAX_BATCH_ROW
}};
}  // namespace

BatchRule batch_rule(OpCode op) { return kBatch[static_cast<size_t>(op)]; }

std::vector<Batched> as_batched(std::vector<Tensor> ts, bool batched) {
  std::vector<Batched> out;
  out.reserve(ts.size());
  for (Tensor& t : ts) out.push_back({std::move(t), batched});
  return out;
}

Tensor materialize(const Batched& b, int64_t size) {
  if (b.batched) return b.t;
  Shape shape{size};
  IntList dims;
  for (int64_t d = 0; d < b.t.dim(); ++d) {
    shape.dims().push_back(b.t.size(d));
    dims.push_back(d + 1);
  }
  return record_op(OpCode::broadcast_in_dim, {&b.t}, BroadcastInDimAttrs{shape, dims});
}

std::vector<Batched> batch_by_loop(const BatchContext& c) {
  if (c.size == 0) {
    throw ValueError("[vmap] " + std::string(op_name(c.op)) +
                     " is batched by a loop over the examples, which needs at least one; got a "
                     "batch of size 0");
  }
  std::vector<std::vector<Tensor>> per_example;  // [result][example]
  for (int64_t i = 0; i < c.size; ++i) {
    std::vector<Tensor> in;
    for (const Batched& b : c.inputs) in.push_back(b.batched ? b.t.select(0, i) : b.t);
    std::vector<Tensor> out = record_op(c.op, in, c.attrs);
    per_example.resize(out.size());
    for (size_t r = 0; r < out.size(); ++r) per_example[r].push_back(out[r]);
  }
  std::vector<Tensor> out;
  out.reserve(per_example.size());
  for (const auto& xs : per_example) out.push_back(stack(xs, 0));
  return as_batched(std::move(out));
}

}  // namespace lazax::autodiff
