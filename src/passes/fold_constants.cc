// Constant folding: a node whose operands are all constants is evaluated by the reference
// interpreter (so the folded value is exactly what the program computed) when it is small.
#include "lazax/interp/interpreter.h"
#include "lazax/passes/passes.h"
#include "rebuild.h"

namespace lazax::passes {
namespace {

bool foldable(OpCode op) {
  switch (op) {
    case OpCode::parameter:
    case OpCode::constant:
    case OpCode::iota:
    case OpCode::broadcast_in_dim:
    case OpCode::checkpoint_name:
    case OpCode::optimization_barrier:
    case OpCode::copy_to_memory_kind:
      return false;
    default:
      return !has_flag(op, kHasBodies) && !has_flag(op, kCollective);
  }
}

}  // namespace

FunctionPtr fold_constants(const FunctionPtr& f, int64_t max_elements) {
  detail::Rebuild r(f);
  auto recurse = [&](const FunctionPtr& g) { return fold_constants(g, max_elements); };
  for (size_t i = static_cast<size_t>(f->num_params()); i < f->nodes().size(); ++i) {
    const Node& n = f->nodes()[i];
    Attrs attrs = n.attrs;
    if (has_flag(n.op, kHasBodies) && detail::map_bodies(attrs, recurse)) r.changed = true;
    std::vector<ValueRef> operands = r.mapped_operands(n);
    bool fold = foldable(n.op) && !operands.empty();
    int64_t out_elements = 0, in_elements = 0;
    for (const TensorType& t : n.outputs) out_elements += t.numel();
    for (ValueRef v : operands) {
      fold = fold && r.new_node(v).op == OpCode::constant;
      in_elements += r.builder().type(v).numel();
    }
    if (!fold || out_elements > max_elements || in_elements > 64 * max_elements) {
      r.set(static_cast<int32_t>(i), r.copy(n, std::move(attrs)));
      continue;
    }
    Builder one(std::string(op_name(n.op)));
    std::vector<ValueRef> params;
    std::vector<const Literal*> args;
    for (ValueRef v : operands) {
      params.push_back(one.param(r.builder().type(v)));
      args.push_back(&std::get<ConstantAttrs>(r.new_node(v).attrs).value);
    }
    FunctionPtr g = one.build(one.add_multi(n.op, params, attrs));
    std::vector<Literal> values = interpret(*g, args);
    std::vector<ValueRef> outs;
    outs.reserve(values.size());
    for (const Literal& v : values) outs.push_back(r.builder().constant(v, n.debug));
    r.set(static_cast<int32_t>(i), std::move(outs));
    r.changed = true;
  }
  return r.finish();
}

}  // namespace lazax::passes
