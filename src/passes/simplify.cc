// Algebraic simplification: local rewrites of one node, looking at its (already simplified)
// operands in the new function. Layout chains and the dot_general rewrite are in
// simplify_layout.cc.
#include <algorithm>
#include <optional>

#include "lazax/passes/passes.h"
#include "rebuild.h"
#include "simplify_layout.h"

namespace lazax::passes {
namespace {

// The value every element of `v` has, when `v` is a constant (possibly broadcast) holding one
// value throughout.
std::optional<double> splat(const Builder& b, ValueRef v) {
  const Node* n = &b.node(v.node);
  while (n->op == OpCode::broadcast_in_dim) n = &b.node(n->operands[0].node);
  if (n->op != OpCode::constant) return std::nullopt;
  const Literal& l = n->attr<ConstantAttrs>().value;
  if (l.numel() == 0) return std::nullopt;
  double x = l.at(0);
  for (int64_t k = 1; k < l.numel(); ++k)
    if (!(l.at(k) == x)) return std::nullopt;
  return x;
}

bool is(const Builder& b, ValueRef v, double x) {
  auto s = splat(b, v);
  return s && *s == x;
}

// The value node `n` (operands `ops`, in the new function) simplifies to, if any.
std::optional<ValueRef> simplify_arith(const Builder& b, const Node& n,
                                       const std::vector<ValueRef>& ops) {
  switch (n.op) {
    case OpCode::add:
      if (is(b, ops[1], 0)) return ops[0];
      if (is(b, ops[0], 0)) return ops[1];
      break;
    case OpCode::sub:
      if (is(b, ops[1], 0)) return ops[0];
      break;
    case OpCode::mul:
      if (is(b, ops[1], 1)) return ops[0];
      if (is(b, ops[0], 1)) return ops[1];
      break;
    case OpCode::div:
      if (is(b, ops[1], 1)) return ops[0];
      break;
    case OpCode::neg: {
      const Node& a = b.node(ops[0].node);
      if (a.op == OpCode::neg) return a.operands[0];
      break;
    }
    case OpCode::convert:
      if (b.type(ops[0]).dtype == n.attr<ConvertAttrs>().dtype) return ops[0];
      break;
    case OpCode::select: {
      if (ops[1] == ops[2]) return ops[1];
      auto pred = splat(b, ops[0]);
      if (pred) return *pred != 0 ? ops[1] : ops[2];
      break;
    }
    case OpCode::reduce_sum:
    case OpCode::reduce_max:
    case OpCode::reduce_min:
    case OpCode::reduce_prod:
      if (n.attr<ReduceAttrs>().axes.empty()) return ops[0];
      break;
    case OpCode::concatenate:
      if (ops.size() == 1) return ops[0];
      break;
    case OpCode::slice:
      if (b.type(ops[0]) == n.outputs[0]) return ops[0];  // the whole operand
      break;
    case OpCode::pad: {
      const auto& a = n.attr<PadAttrs>();
      auto zeros = [](const IntList& v) {
        return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
      };
      if (zeros(a.edge_padding_low) && zeros(a.edge_padding_high) && zeros(a.interior_padding))
        return ops[0];  // nothing added
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

FunctionPtr simplify(const FunctionPtr& f) {
  detail::Rebuild r(f);
  Builder& b = r.builder();
  std::vector<int32_t> readers(f->nodes().size(), 0);  // reads of each node, results too
  for (const Node& n : f->nodes())
    for (ValueRef v : n.operands) ++readers[static_cast<size_t>(v.node)];
  for (ValueRef v : f->results()) ++readers[static_cast<size_t>(v.node)];
  std::vector<bool> sole;
  for (size_t i = static_cast<size_t>(f->num_params()); i < f->nodes().size(); ++i) {
    const Node& n = f->nodes()[i];
    Attrs attrs = n.attrs;
    if (has_flag(n.op, kHasBodies) && detail::map_bodies(attrs, simplify)) r.changed = true;
    std::vector<ValueRef> ops = r.mapped_operands(n);
    sole.clear();
    for (ValueRef v : n.operands) sole.push_back(readers[static_cast<size_t>(v.node)] == 1);
    std::optional<ValueRef> v = simplify_arith(b, n, ops);
    if (!v) v = detail::simplify_layout(b, n, ops, sole);
    if (v) {
      r.set(static_cast<int32_t>(i), {*v});
      r.changed = true;
    } else {
      r.set(static_cast<int32_t>(i), r.copy(n, std::move(attrs)));
    }
  }
  return r.finish();
}

}  // namespace lazax::passes
