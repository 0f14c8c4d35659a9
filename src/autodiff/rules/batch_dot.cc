// The batching rule of dot_general: batched on both sides, the batch dimension becomes one more
// batch dimension of the product (the first, so it lands at 0); batched on one side it is a free
// dimension of that side, moved to 0 afterwards.
#include "lazax/autodiff/batching.h"

namespace lazax::autodiff {

namespace {
IntList shifted(const IntList& v) {
  IntList out;
  for (int64_t d : v) out.push_back(d + 1);
  return out;
}
// `t` with dimension `pos` moved to 0.
Tensor to_front(const Tensor& t, int64_t pos) {
  if (pos == 0) return t;
  IntList perm{pos};
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != pos) perm.push_back(d);
  return record_op(OpCode::transpose, {&t}, TransposeAttrs{perm});
}
}  // namespace

std::vector<Batched> batch_dot_general(const BatchContext& c) {
  DotGeneralAttrs a = c.attr<DotGeneralAttrs>();
  const Batched& l = c.inputs[0];
  const Batched& r = c.inputs[1];
  const auto nbatch = static_cast<int64_t>(a.lhs_batch.size());
  int64_t pos = 0;  // where the batch dimension lands in the product
  if (l.batched) {
    a.lhs_batch = shifted(a.lhs_batch);
    a.lhs_contracting = shifted(a.lhs_contracting);
  }
  if (r.batched) {
    a.rhs_batch = shifted(a.rhs_batch);
    a.rhs_contracting = shifted(a.rhs_contracting);
  }
  if (l.batched && r.batched) {
    a.lhs_batch.insert(a.lhs_batch.begin(), 0);
    a.rhs_batch.insert(a.rhs_batch.begin(), 0);
  } else if (l.batched) {
    pos = nbatch;
  } else {
    pos = nbatch + (l.t.dim() - nbatch - static_cast<int64_t>(a.lhs_contracting.size()));
  }
  Tensor out = record_op(OpCode::dot_general, {&l.t, &r.t}, a);
  return {{to_front(out, pos), true}};
}

}  // namespace lazax::autodiff
