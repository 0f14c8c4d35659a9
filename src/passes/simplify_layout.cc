#include "simplify_layout.h"

#include <algorithm>
#include <utility>

#include "lazax/core/dtype.h"
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

// transpose(convert(y)) to a wider dtype is convert(transpose(y)): the transpose then moves the
// narrow values, and when y is a dot_general (under Autocast, a bf16 weight gradient widened to
// the f32 parameter's dtype) the next round folds the transpose into the GEMM (transposed_dot),
// whose convert the cpu backend folds in turn.
std::optional<ValueRef> widened_transpose(Builder& b, const Node& n, const Node& c) {
  const ValueRef y = c.operands[0];
  if (dtype_size(c.attr<ConvertAttrs>().dtype) <= dtype_size(b.type(y).dtype)) return std::nullopt;
  Attrs convert = c.attrs;  // b.add may move the nodes: copy what is read after it
  const auto debug = c.debug;
  ValueRef t = b.add(OpCode::transpose, {y}, n.attrs, n.debug);
  return b.add(OpCode::convert, {t}, std::move(convert), debug);
}

std::optional<ValueRef> transpose(Builder& b, const Node& n, ValueRef x, bool sole_reader) {
  const Node& a = b.node(x.node);
  if (a.op == OpCode::dot_general && sole_reader) return transposed_dot(b, n, a);
  if (a.op == OpCode::convert && sole_reader) {
    if (auto v = widened_transpose(b, n, a)) return v;
  }
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

// A pad of x with zeros along one dim only (no interior padding, no cropping): where x sits.
struct PadSpan {
  ValueRef x, zero;
  int64_t dim = -1, lo = 0, size = 0;
};

std::optional<PadSpan> pad_span(const Builder& b, ValueRef v) {
  const Node& p = b.node(v.node);
  if (p.op != OpCode::pad) return std::nullopt;
  const Node& z = b.node(p.operands[1].node);
  if (z.op != OpCode::constant || z.attr<ConstantAttrs>().value.at(0) != 0) return std::nullopt;
  const auto& a = p.attr<PadAttrs>();
  PadSpan s{p.operands[0], p.operands[1]};
  for (size_t d = 0; d < a.interior_padding.size(); ++d) {
    const int64_t lo = a.edge_padding_low[d], hi = a.edge_padding_high[d];
    if (a.interior_padding[d] != 0 || lo < 0 || hi < 0) return std::nullopt;
    if (lo == 0 && hi == 0) continue;
    if (s.dim >= 0) return std::nullopt;
    s.dim = static_cast<int64_t>(d);
    s.lo = lo;
  }
  if (s.dim < 0) return std::nullopt;
  s.size = b.type(s.x).shape[static_cast<size_t>(s.dim)];
  return s;
}

// The zero pads the add tree at `v` sums (through adds); false when another value is summed too
// or the tree has more than `visits` nodes (so that each add of a long chain of sums looks at a
// bounded part of it, not the whole chain: simplify stays linear).
bool summed_pads(const Builder& b, ValueRef v, std::vector<PadSpan>& out, int& visits) {
  if (--visits < 0) return false;
  if (auto s = pad_span(b, v)) {
    out.push_back(*s);
    return true;
  }
  const Node& a = b.node(v.node);
  return a.op == OpCode::add && summed_pads(b, a.operands[0], out, visits) &&
         summed_pads(b, a.operands[1], out, visits);
}

// A sum of zero pads whose operands tile one dim side by side, in any order of the adds, is
// pad(concatenate(the operands in place order)), the concatenation itself when it covers the
// whole dim: the VJP of several slices of one value (narrows, a split) is their cotangents
// concatenated, not each padded to the whole value and summed. (Bit for bit but for the sign of
// a zero: -0 + 0 is +0.)
std::optional<ValueRef> sum_of_pads(Builder& b, const Node& n, const std::vector<ValueRef>& ops) {
  std::vector<PadSpan> spans;
  int visits = 128;
  if (!summed_pads(b, ops[0], spans, visits) || !summed_pads(b, ops[1], spans, visits))
    return std::nullopt;
  std::sort(spans.begin(), spans.end(),
            [](const PadSpan& x, const PadSpan& y) { return x.lo < y.lo; });
  const int64_t dim = spans[0].dim;
  for (size_t k = 1; k < spans.size(); ++k) {
    if (spans[k].dim != dim || spans[k - 1].lo + spans[k - 1].size != spans[k].lo)
      return std::nullopt;
  }
  std::vector<ValueRef> parts;
  int64_t size = 0;
  for (const PadSpan& sp : spans) {  // a concatenation along dim is flattened into this one
    size += sp.size;
    const Node& c = b.node(sp.x.node);
    if (c.op == OpCode::concatenate && c.attr<ConcatenateAttrs>().dimension == dim)
      parts.insert(parts.end(), c.operands.begin(), c.operands.end());
    else
      parts.push_back(sp.x);
  }
  ValueRef cat = b.add(OpCode::concatenate, std::move(parts), ConcatenateAttrs{dim}, n.debug);
  const auto d = static_cast<size_t>(dim);
  const size_t rank = n.outputs[0].shape.rank();
  PadAttrs p{IntList(rank, 0), IntList(rank, 0), IntList(rank, 0)};
  p.edge_padding_low[d] = spans[0].lo;
  p.edge_padding_high[d] = n.outputs[0].shape[d] - spans[0].lo - size;
  if (p.edge_padding_low[d] == 0 && p.edge_padding_high[d] == 0) return cat;
  return b.add(OpCode::pad, {cat, spans[0].zero}, std::move(p), n.debug);
}

std::optional<ValueRef> dot(Builder& b, const Node& n, const std::vector<ValueRef>& ops) {
  DotGeneralAttrs at = n.attr<DotGeneralAttrs>();
  auto lhs = fold_transpose(b, ops[0], at.lhs_batch, at.lhs_contracting);
  auto rhs = fold_transpose(b, ops[1], at.rhs_batch, at.rhs_contracting);
  if (!lhs && !rhs) return std::nullopt;
  return b.add(OpCode::dot_general, {lhs.value_or(ops[0]), rhs.value_or(ops[1])}, at, n.debug);
}

// convert(transpose(x)) to a narrower dtype is transpose(convert(x)): the transpose then moves
// the narrow values, and a dot_general reading it folds it away (Autocast's bf16 W^T).
std::optional<ValueRef> narrowing_convert(Builder& b, const Node& n, ValueRef x, bool sole) {
  const Node& t = b.node(x.node);
  const DType to = n.attr<ConvertAttrs>().dtype;
  if (t.op != OpCode::transpose || !sole || dtype_size(to) >= dtype_size(b.type(x).dtype))
    return std::nullopt;
  Attrs permutation = t.attrs;  // b.add may move the nodes: copy what is read after it
  const auto debug = t.debug;
  ValueRef c = b.add(OpCode::convert, {t.operands[0]}, n.attrs, n.debug);
  return b.add(OpCode::transpose, {c}, std::move(permutation), debug);
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
    case OpCode::convert:
      return narrowing_convert(b, n, ops[0], sole_reader[0]);
    case OpCode::add:
      if (sole_reader[0] && sole_reader[1]) return sum_of_pads(b, n, ops);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace lazax::passes::detail
