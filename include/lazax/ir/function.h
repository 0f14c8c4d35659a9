// The one program representation: a Function has typed parameters, nodes in topological order
// and results. Lazy graphs become Functions at sync; traced functions are Functions; sub-functions
// (callees, branches, loop bodies) hang off the attributes of `call`, `cond`, `while`, `scan`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazax/core/small_vec.h"
#include "lazax/ir/attrs.h"
#include "lazax/ir/op.h"

namespace lazax {

// Output `index` of node `node` of the enclosing Function.
struct ValueRef {
  int32_t node = -1;
  int32_t index = 0;
  friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

// Where a node was made. Never part of a hash. Strings are interned (live forever).
struct DebugInfo {
  const char* file = nullptr;
  uint32_t line = 0;
  uint32_t call_site = 0;       // the traced call stack that made it (trace/call_site.h); 0: none
  const char* scope = nullptr;  // profiler scope path, "a/b"
};
const char* intern_string(std::string_view s);

struct Node {
  OpCode op = OpCode::constant;
  Attrs attrs;
  SmallVec<ValueRef, 4> operands;
  std::vector<TensorType> outputs;
  uint64_t hash = 0;  // structural: op, attrs, output types, operand hashes; not debug info
  DebugInfo debug;

  template <class A>
  const A& attr() const {
    return std::get<A>(attrs);
  }
};

class Function {
 public:
  // Prefer Builder; this constructor checks nothing.
  Function(std::string name, std::vector<Node> nodes, int num_params,
           std::vector<ValueRef> results);

  const std::string& name() const { return name_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(int32_t i) const { return nodes_[static_cast<size_t>(i)]; }
  int num_params() const { return num_params_; }
  const std::vector<ValueRef>& results() const { return results_; }
  const TensorType& type(ValueRef v) const {
    return nodes_[static_cast<size_t>(v.node)].outputs[static_cast<size_t>(v.index)];
  }
  TensorType param_type(int i) const { return nodes_[static_cast<size_t>(i)].outputs[0]; }
  std::vector<TensorType> param_types() const;
  // The results' types (kept from construction: a call's shape rule reads them every time).
  const std::vector<TensorType>& result_types() const { return result_types_; }
  // The same, interned (core/interned_type.h): what a call's graph node and handles point to.
  const std::vector<const TensorType*>& interned_result_types() const {
    return interned_result_types_;
  }
  // Structural hash: stable across runs and processes, ignores names and debug info.
  uint64_t hash() const { return hash_; }
  // Whether the parameter count fits the nodes and each parameter has one output (checked once,
  // at construction: shape rules of call, cond, while and scan read it on every recording).
  bool params_well_formed() const { return params_well_formed_; }
  // Whether it takes `n` arguments of the types type_at(0), ..., type_at(n - 1), compared in
  // place (the call, cond, while and scan shape rules, and recording a call, ask this).
  template <class TypeAt>
  bool takes(size_t n, TypeAt type_at) const {
    if (!params_well_formed_ || n != static_cast<size_t>(num_params_)) return false;
    for (size_t i = 0; i < n; ++i)
      if (!(nodes_[i].outputs[0] == type_at(i))) return false;
    return true;
  }
  // The same for interned types (core/interned_type.h), as graph values and tensor handles
  // have: compared by address (a call records this for each of its operands on every step).
  template <class TypeAt>
  bool takes_interned(size_t n, TypeAt type_at) const {
    if (!params_well_formed_ || n != static_cast<size_t>(num_params_)) return false;
    for (size_t i = 0; i < n; ++i)
      if (interned_param_types_[i] != &type_at(i)) return false;
    return true;
  }
  // Sub-functions referenced directly by this function's nodes, in first-use order.
  std::vector<FunctionPtr> callees() const;
  // Number of non-parameter nodes, including those of sub-functions (counted once per use).
  int64_t total_nodes() const;

 private:
  std::string name_;
  std::vector<Node> nodes_;
  int num_params_;
  std::vector<ValueRef> results_;
  uint64_t hash_;
  std::vector<TensorType> result_types_;
  std::vector<const TensorType*> interned_result_types_;
  std::vector<const TensorType*> interned_param_types_;  // (when params_well_formed_)
  bool params_well_formed_ = false;
};

// The parameter node at position `index` of type `t`, hashed.
Node make_param_node(int64_t index, const TensorType& t);
// Sets n.hash from its parts and its operands, which refer to `nodes` (the nodes before it).
void seal_node(Node& n, const std::vector<Node>& nodes);

// Hash of a node from its parts and its operands' hashes (the rule Builder uses).
uint64_t node_hash(OpCode op, const Attrs& attrs, const std::vector<TensorType>& outputs,
                   std::span<const uint64_t> operand_hashes,
                   std::span<const int32_t> operand_indices);

}  // namespace lazax
