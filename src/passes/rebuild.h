// Internal helper of the passes: rebuilds a function node by node through Builder, mapping each
// value of the old function to a value of the new one.
#pragma once
#include <functional>
#include <vector>

#include "lazax/ir/builder.h"

namespace lazax::passes::detail {

class Rebuild {
 public:
  // Starts the new function with the old one's name and parameters (mapped to themselves).
  explicit Rebuild(const FunctionPtr& f);

  Builder& builder() { return b_; }
  const Node& new_node(ValueRef v) const { return b_.node(v.node); }
  ValueRef map(ValueRef old) const {
    return map_[static_cast<size_t>(old.node)][static_cast<size_t>(old.index)];
  }
  std::vector<ValueRef> mapped_operands(const Node& n) const;
  // Old node `old_node` now stands for `outs`.
  void set(int32_t old_node, std::vector<ValueRef> outs) {
    map_[static_cast<size_t>(old_node)] = std::move(outs);
  }
  // Adds a copy of `n` with its operands mapped and the given attributes; returns its outputs.
  std::vector<ValueRef> copy(const Node& n, Attrs attrs);
  // The new function, or the old one when `changed` was never set.
  FunctionPtr finish();

  bool changed = false;

 private:
  FunctionPtr f_;
  Builder b_;
  std::vector<std::vector<ValueRef>> map_;
};

// Applies `fn` to every sub-function held by `attrs` (in place); returns whether one changed.
bool map_bodies(Attrs& attrs, const std::function<FunctionPtr(const FunctionPtr&)>& fn);

// Copies the nodes of `g` into `b`, its parameters bound to `args`; returns g's results there.
std::vector<ValueRef> emit_inline(Builder& b, const Function& g, const std::vector<ValueRef>& args);

}  // namespace lazax::passes::detail
