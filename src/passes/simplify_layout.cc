#include "simplify_layout.h"

#include <algorithm>

#include "lazax/ir/layout_fold.h"

namespace lazax::passes::detail {
namespace {

// transpose(dot_general(l, r)) that swaps the lhs and rhs free dims (batch dims in place) is
// dot_general(r, l): the GEMM writes the transposed result itself.
std::optional<ValueRef> transposed_dot(Builder& b, const Node& n, const Node& dot) {
  const auto& at = dot.attr<DotGeneralAttrs>();
  const auto nb = static_cast<int64_t>(at.lhs_batch.size());
  const auto nl = static_cast<int64_t>(b.type(dot.operands[0]).shape.rank()) - nb -
                  static_cast<int64_t>(at.lhs_contracting.size());
  const IntList& p = n.attr<TransposeAttrs>().permutation;
  const auto nr = static_cast<int64_t>(p.size()) - nb - nl;
  IntList want;
  for (int64_t i = 0; i < nb; ++i) want.push_back(i);
  for (int64_t i = 0; i < nr; ++i) want.push_back(nb + nl + i);
  for (int64_t i = 0; i < nl; ++i) want.push_back(nb + i);
  if (p != want) return std::nullopt;
  DotGeneralAttrs swapped{at.rhs_batch, at.lhs_batch, at.rhs_contracting, at.lhs_contracting};
  return b.add(OpCode::dot_general, {dot.operands[1], dot.operands[0]}, swapped, n.debug);
}

// A layout view of a value: the value itself when the view changes nothing; one view from the
// start of a chain of them (ir/layout_fold.h).
std::optional<ValueRef> fold_view(Builder& b, const Node& n, ValueRef x) {
  if (is_layout_identity(n.op, n.attrs, b.type(x))) return x;
  const Node& a = b.node(x.node);
  if (a.op != n.op) return std::nullopt;
  Attrs composed = compose_layout(n.op, a.attrs, n.attrs);
  if (is_layout_identity(n.op, composed, b.type(a.operands[0]))) return a.operands[0];
  return b.add(n.op, {a.operands[0]}, std::move(composed), n.debug);
}

std::optional<ValueRef> transpose(Builder& b, const Node& n, ValueRef x, bool sole_reader) {
  const Node& a = b.node(x.node);
  if (a.op == OpCode::dot_general && sole_reader) return transposed_dot(b, n, a);
  return fold_view(b, n, x);
}

bool contains(const IntList& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// For a dot_general operand that is transpose(x, p): maps its batch and contracting dims
// through p in place and returns x, when the free dims keep their order (so the output's dims
// do not move); nullopt otherwise.
std::optional<ValueRef> fold_transpose(const Builder& b, ValueRef v, IntList& batch,
                                       IntList& contracting) {
  const Node& t = b.node(v.node);
  if (t.op != OpCode::transpose) return std::nullopt;
  const IntList& p = t.attr<TransposeAttrs>().permutation;
  int64_t last = -1;
  for (size_t j = 0; j < p.size(); ++j) {
    auto d = static_cast<int64_t>(j);
    if (contains(batch, d) || contains(contracting, d)) continue;
    if (p[j] < last) return std::nullopt;
    last = p[j];
  }
  for (int64_t& d : batch) d = p[static_cast<size_t>(d)];
  for (int64_t& d : contracting) d = p[static_cast<size_t>(d)];
  return t.operands[0];
}

std::optional<ValueRef> dot(Builder& b, const Node& n, const std::vector<ValueRef>& ops) {
  DotGeneralAttrs at = n.attr<DotGeneralAttrs>();
  auto lhs = fold_transpose(b, ops[0], at.lhs_batch, at.lhs_contracting);
  auto rhs = fold_transpose(b, ops[1], at.rhs_batch, at.rhs_contracting);
  if (!lhs && !rhs) return std::nullopt;
  return b.add(OpCode::dot_general, {lhs.value_or(ops[0]), rhs.value_or(ops[1])}, at, n.debug);
}

}  // namespace

std::optional<ValueRef> simplify_layout(Builder& b, const Node& n, const std::vector<ValueRef>& ops,
                                        const std::vector<bool>& sole_reader) {
  switch (n.op) {
    case OpCode::transpose:
      return transpose(b, n, ops[0], sole_reader[0]);
    case OpCode::reshape:
    case OpCode::broadcast_in_dim:
      return fold_view(b, n, ops[0]);
    case OpCode::dot_general:
      return dot(b, n, ops);
    default:
      return std::nullopt;
  }
}

}  // namespace lazax::passes::detail
