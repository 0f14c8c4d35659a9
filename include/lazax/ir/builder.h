// Builds a Function node by node, running each op's shape rule as it goes.
#pragma once
#include <string>
#include <vector>

#include "lazax/ir/function.h"

namespace lazax {

class Builder {
 public:
  explicit Builder(std::string name = "main") : name_(std::move(name)) {}

  // Parameters must all be added before the first node.
  ValueRef param(const TensorType& t, DebugInfo debug = {});
  // Adds a node; runs the shape rule (throws ShapeError/DTypeError, leaving the builder as it
  // was). Returns all outputs.
  std::vector<ValueRef> add_multi(OpCode op, std::vector<ValueRef> operands,
                                  Attrs attrs = NoAttrs{}, DebugInfo debug = {});
  // Adds a single-output node and returns its output.
  ValueRef add(OpCode op, std::vector<ValueRef> operands, Attrs attrs = NoAttrs{},
               DebugInfo debug = {});
  // Adds a node whose output types are already known (e.g. copied from another function);
  // the types are still checked against the shape rule.
  std::vector<ValueRef> add_node(Node node);
  ValueRef constant(const Literal& value, DebugInfo debug = {});

  const TensorType& type(ValueRef v) const;
  int num_params() const { return num_params_; }
  size_t num_nodes() const { return nodes_.size(); }
  const Node& node(int32_t i) const { return nodes_[static_cast<size_t>(i)]; }

  // Finishes the function. The builder is left empty.
  FunctionPtr build(const std::vector<ValueRef>& results);

 private:
  void check_ref(ValueRef v, OpCode op) const;

  std::string name_;
  std::vector<Node> nodes_;
  int num_params_ = 0;
};

// Checks a function (and its sub-functions): operand references point backwards, parameters
// come first, every node's output types match its shape rule, bodies have the signatures their
// op needs. Throws VerifyError naming the function, the node and what is wrong.
void verify(const Function& f);

}  // namespace lazax
