#include "lazax/ir/builder.h"

#include <string>

#include "lazax/core/error.h"

namespace lazax {

ValueRef Builder::param(const TensorType& t, DebugInfo debug) {
  if (nodes_.size() != static_cast<size_t>(num_params_)) {
    throw ValueError("[builder] parameters of @" + name_ + " must come before its first node");
  }
  Node n = make_param_node(num_params_, t);
  n.debug = debug;
  nodes_.push_back(std::move(n));
  return ValueRef{num_params_++, 0};
}

void Builder::check_ref(ValueRef v, OpCode op) const {
  if (v.node < 0 || static_cast<size_t>(v.node) >= nodes_.size() || v.index < 0 ||
      static_cast<size_t>(v.index) >= nodes_[static_cast<size_t>(v.node)].outputs.size()) {
    throw ValueError("[" + std::string(op_name(op)) + "] operand %" + std::to_string(v.node) + "#" +
                     std::to_string(v.index) + " does not exist in @" + name_);
  }
}

const TensorType& Builder::type(ValueRef v) const {
  check_ref(v, OpCode::parameter);
  return nodes_[static_cast<size_t>(v.node)].outputs[static_cast<size_t>(v.index)];
}

std::vector<ValueRef> Builder::add_multi(OpCode op, std::vector<ValueRef> operands, Attrs attrs,
                                         DebugInfo debug) {
  Node n;
  n.op = op;
  n.attrs = std::move(attrs);
  n.operands.assign(operands.begin(), operands.end());
  n.debug = debug;
  std::vector<TensorType> in;
  in.reserve(operands.size());
  for (auto v : operands) {
    check_ref(v, op);
    in.push_back(type(v));
  }
  n.outputs = infer_types(op, in, n.attrs);
  return add_node(std::move(n));
}

ValueRef Builder::add(OpCode op, std::vector<ValueRef> operands, Attrs attrs, DebugInfo debug) {
  auto outs = add_multi(op, std::move(operands), std::move(attrs), debug);
  if (outs.size() != 1) {
    throw ValueError("[" + std::string(op_name(op)) + "] has " + std::to_string(outs.size()) +
                     " outputs; use add_multi");
  }
  return outs[0];
}

std::vector<ValueRef> Builder::add_node(Node n) {
  if (n.op == OpCode::parameter) throw ValueError("[builder] use param() for parameters");
  std::vector<TensorType> in;
  SmallVec<uint64_t, 4> hashes;
  SmallVec<int32_t, 4> indices;
  for (auto v : n.operands) {
    check_ref(v, n.op);
    in.push_back(type(v));
    hashes.push_back(nodes_[static_cast<size_t>(v.node)].hash);
    indices.push_back(v.index);
  }
  auto expected = infer_types(n.op, in, n.attrs);
  if (expected != n.outputs) {
    std::string got, want;
    for (const auto& t : n.outputs) got += (got.empty() ? "" : ", ") + t.str();
    for (const auto& t : expected) want += (want.empty() ? "" : ", ") + t.str();
    throw ShapeError("[" + std::string(op_name(n.op)) + "] declared result type (" + got +
                     ") does not match the shape rule's (" + want + ")");
  }
  n.hash = node_hash(n.op, n.attrs, n.outputs, {hashes.begin(), hashes.size()},
                     {indices.begin(), indices.size()});
  int32_t id = static_cast<int32_t>(nodes_.size());
  size_t nout = n.outputs.size();
  nodes_.push_back(std::move(n));
  std::vector<ValueRef> outs;
  for (size_t i = 0; i < nout; ++i) outs.push_back(ValueRef{id, static_cast<int32_t>(i)});
  return outs;
}

ValueRef Builder::constant(const Literal& value, DebugInfo debug) {
  return add(OpCode::constant, {}, ConstantAttrs{value}, debug);
}

FunctionPtr Builder::build(const std::vector<ValueRef>& results) {
  for (auto r : results) check_ref(r, OpCode::parameter);
  auto f = std::make_shared<Function>(name_, std::move(nodes_), num_params_, results);
  nodes_.clear();
  num_params_ = 0;
  return f;
}

}  // namespace lazax
