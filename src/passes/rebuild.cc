#include "rebuild.h"

#include <type_traits>
#include <variant>

namespace lazax::passes::detail {

Rebuild::Rebuild(const FunctionPtr& f) : f_(f), b_(f->name()), map_(f->nodes().size()) {
  for (int i = 0; i < f->num_params(); ++i) {
    set(i, {b_.param(f->param_type(i), f->node(i).debug)});
  }
}

std::vector<ValueRef> Rebuild::mapped_operands(const Node& n) const {
  std::vector<ValueRef> ops;
  ops.reserve(n.operands.size());
  for (ValueRef v : n.operands) ops.push_back(map(v));
  return ops;
}

std::vector<ValueRef> Rebuild::copy(const Node& n, Attrs attrs) {
  Node m;
  m.op = n.op;
  m.attrs = std::move(attrs);
  for (ValueRef v : n.operands) m.operands.push_back(map(v));
  m.outputs = n.outputs;
  m.debug = n.debug;
  return b_.add_node(std::move(m));
}

FunctionPtr Rebuild::finish() {
  if (!changed) return f_;
  std::vector<ValueRef> results;
  results.reserve(f_->results().size());
  for (ValueRef r : f_->results()) results.push_back(map(r));
  return b_.build(results);
}

bool map_bodies(Attrs& attrs, const std::function<FunctionPtr(const FunctionPtr&)>& fn) {
  bool changed = false;
  auto one = [&](FunctionPtr& g) {
    if (!g) return;
    FunctionPtr h = fn(g);
    if (h != g) {
      g = std::move(h);
      changed = true;
    }
  };
  std::visit(
      [&](auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, CallAttrs>) {
          one(a.callee);
        } else if constexpr (std::is_same_v<A, CondAttrs>) {
          for (FunctionPtr& g : a.branches) one(g);
        } else if constexpr (std::is_same_v<A, WhileAttrs>) {
          one(a.cond);
          one(a.body);
        } else if constexpr (std::is_same_v<A, ScanAttrs>) {
          one(a.body);
        }
      },
      attrs);
  return changed;
}

std::vector<ValueRef> emit_inline(Builder& b, const Function& g,
                                  const std::vector<ValueRef>& args) {
  std::vector<std::vector<ValueRef>> map(g.nodes().size());
  for (int i = 0; i < g.num_params(); ++i)
    map[static_cast<size_t>(i)] = {args[static_cast<size_t>(i)]};
  auto mapped = [&](ValueRef v) {
    return map[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)];
  };
  for (size_t i = static_cast<size_t>(g.num_params()); i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    Node m;
    m.op = n.op;
    m.attrs = n.attrs;
    for (ValueRef v : n.operands) m.operands.push_back(mapped(v));
    m.outputs = n.outputs;
    m.debug = n.debug;
    map[i] = b.add_node(std::move(m));
  }
  std::vector<ValueRef> results;
  for (ValueRef r : g.results()) results.push_back(mapped(r));
  return results;
}

}  // namespace lazax::passes::detail
