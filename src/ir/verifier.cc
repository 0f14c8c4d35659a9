// The verifier: checks that a Function (and every sub-function, once each) is well formed, so
// that passes, the interpreter and backends can trust it. Every message names the function,
// the node and what is wrong.
#include <string>
#include <unordered_set>

#include "lazax/core/error.h"
#include "lazax/ir/builder.h"

namespace lazax {
namespace {

std::string types_str(const std::vector<TensorType>& ts) {
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].str();
  return "(" + s + ")";
}

class Verifier {
 public:
  void run(const Function& f) {
    if (!done_.insert(&f).second) return;
    f_ = &f;
    const auto& nodes = f.nodes();
    if (f.num_params() < 0 || static_cast<size_t>(f.num_params()) > nodes.size()) {
      fail_fn("has " + std::to_string(f.num_params()) + " parameters but only " +
              std::to_string(nodes.size()) + " nodes");
    }
    for (size_t i = 0; i < nodes.size(); ++i) check_node(static_cast<int32_t>(i));
    for (size_t r = 0; r < f.results().size(); ++r) {
      ValueRef v = f.results()[r];
      if (!exists(v, static_cast<int32_t>(nodes.size()))) {
        fail_fn("result " + std::to_string(r) + " refers to %" + std::to_string(v.node) + "#" +
                std::to_string(v.index) + ", which does not exist");
      }
    }
  }

 private:
  [[noreturn]] void fail_fn(const std::string& msg) const {
    throw VerifyError("[verify] @" + f_->name() + " " + msg);
  }
  [[noreturn]] void fail(int32_t i, const std::string& msg) const {
    throw VerifyError("[verify] @" + f_->name() + " node %" + std::to_string(i) + " (" +
                      std::string(op_name(f_->node(i).op)) + "): " + msg);
  }

  // A value made by a node before `before` (an existing output of it).
  bool exists(ValueRef v, int32_t before) const {
    return v.node >= 0 && v.node < before && v.index >= 0 &&
           static_cast<size_t>(v.index) < f_->node(v.node).outputs.size();
  }

  void check_node(int32_t i) {
    const Node& n = f_->node(i);
    if (static_cast<size_t>(n.op) >= static_cast<size_t>(kNumOps)) {
      throw VerifyError("[verify] @" + f_->name() + " node %" + std::to_string(i) +
                        ": unknown op code " + std::to_string(static_cast<int>(n.op)));
    }
    if (i < f_->num_params()) {
      check_parameter(i, n);
      return;
    }
    if (n.op == OpCode::parameter) {
      fail(i, "parameters must come first (this function has " + std::to_string(f_->num_params()) +
                  ")");
    }
    std::vector<TensorType> in;
    for (size_t k = 0; k < n.operands.size(); ++k) {
      ValueRef v = n.operands[k];
      if (!exists(v, i)) {
        fail(i, "operand " + std::to_string(k) + " refers to %" + std::to_string(v.node) + "#" +
                    std::to_string(v.index) + ", which is not an output of an earlier node");
      }
      in.push_back(f_->type(v));
    }
    if (n.attrs.index() != op_info(n.op).attrs_index) {
      fail(i, "has the attributes of another op");
    }
    if (has_flag(n.op, kHasBodies)) check_bodies(i, n);
    std::vector<TensorType> want;
    try {
      want = infer_types(n.op, in, n.attrs);
    } catch (const Error& e) {
      fail(i, std::string(e.what()));
    }
    if (want != n.outputs) {
      fail(i, "declares outputs " + types_str(n.outputs) + " but its operands " + types_str(in) +
                  " give " + types_str(want));
    }
  }

  void check_parameter(int32_t i, const Node& n) {
    if (n.op != OpCode::parameter) {
      fail(i, "must be parameter " + std::to_string(i) + " (the function has " +
                  std::to_string(f_->num_params()) + " parameters)");
    }
    const auto* a = std::get_if<ParameterAttrs>(&n.attrs);
    if (!a || a->index != i) {
      fail(i,
           "parameter at position " + std::to_string(i) + " must have index " + std::to_string(i));
    }
    if (!n.operands.empty()) fail(i, "a parameter takes no operands");
    if (n.outputs.size() != 1) fail(i, "a parameter has exactly one output");
    for (int64_t d : n.outputs[0].shape) {
      if (d < 0) fail(i, "parameter type " + n.outputs[0].str() + " has a negative dimension");
    }
  }

  // Verifies each sub-function before the node's shape rule reads its signature.
  void check_bodies(int32_t i, const Node& n) {
    std::vector<FunctionPtr> subs;
    std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, CallAttrs>) {
            subs = {a.callee};
          } else if constexpr (std::is_same_v<A, CondAttrs>) {
            subs = a.branches;
          } else if constexpr (std::is_same_v<A, WhileAttrs>) {
            subs = {a.cond, a.body};
          } else if constexpr (std::is_same_v<A, ScanAttrs>) {
            subs = {a.body};
          }
        },
        n.attrs);
    for (const auto& s : subs) {
      if (!s) fail(i, "has a missing (null) sub-function");
      const Function* saved = f_;
      run(*s);
      f_ = saved;
    }
  }

  std::unordered_set<const Function*> done_;
  const Function* f_ = nullptr;
};

}  // namespace

void verify(const Function& f) { Verifier().run(f); }

}  // namespace lazax
