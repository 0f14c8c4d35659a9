// Interpreter kernels for control flow and the value-preserving ops: call, cond, while, scan,
// checkpoint_name, optimization_barrier, copy_to_memory_kind. Sub-functions run through the
// public interpret(), which checks argument types; results are checked here against the
// node's declared output types so that a malformed hand-built program throws instead of
// handing wrong-typed values to later kernels.
#include <cstring>
#include <string>

#include "kernels.h"
#include "lazax/core/error.h"
#include "lazax/interp/interpreter.h"
#include "lazax/interp/scan_loop.h"

namespace lazax::interp {
namespace {

std::string types_str(std::span<const Literal> vs) {
  std::string s;
  for (const auto& v : vs) s += (s.empty() ? "" : ", ") + v.type.str();
  return s;
}

// The node's attribute struct, or VerifyError if the node carries another one.
template <class A>
const A& attrs_of(const Node& node, const char* op) {
  if (const A* a = std::get_if<A>(&node.attrs)) return *a;
  throw VerifyError(std::string("[") + op + "] node carries the wrong attribute struct");
}

const Function& body_or_throw(const FunctionPtr& f, const char* op, const char* what) {
  if (!f) throw VerifyError(std::string("[") + op + "] missing " + what + " function");
  return *f;
}

// Checks that `got` has exactly the `want` types (the node's outputs, or a slice of them).
void check_results(const char* op, const Function& f, std::span<const Literal> got,
                   std::span<const TensorType> want) {
  bool ok = got.size() == want.size();
  for (size_t i = 0; ok && i < got.size(); ++i) ok = got[i].type == want[i];
  if (!ok) {
    std::string w;
    for (const auto& t : want) w += (w.empty() ? "" : ", ") + t.str();
    throw VerifyError(std::string("[") + op + "] @" + f.name() + " returned (" + types_str(got) +
                      "), expected (" + w + ")");
  }
}

// Integer or bool scalar -> int64 (the branch index of cond).
int64_t scalar_index(const Literal& l, const char* op) {
  if (l.numel() != 1 || l.shape().rank() != 0 ||
      !(is_integer(l.dtype()) || l.dtype() == DType::boolean)) {
    throw DTypeError(std::string("[") + op + "] index must be a bool or integer scalar, got " +
                     l.type.str());
  }
  return dispatch_dtype(l.dtype(), [&]<class T>() -> int64_t {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<int64_t>(l.data<T>()[0]);
    } else {
      return 0;  // unreachable: checked above
    }
  });
}

}  // namespace

std::vector<Literal> kernel_call(const Node& node, std::span<const Literal> in) {
  const Function& callee =
      body_or_throw(attrs_of<CallAttrs>(node, "call").callee, "call", "callee");
  auto out = interpret(callee, in);
  check_results("call", callee, out, node.outputs);
  return out;
}

std::vector<Literal> kernel_cond(const Node& node, std::span<const Literal> in) {
  const auto& branches = attrs_of<CondAttrs>(node, "cond").branches;
  if (in.empty()) throw VerifyError("[cond] needs an index operand");
  if (branches.empty()) throw VerifyError("[cond] has no branches");
  int64_t n = static_cast<int64_t>(branches.size());
  // bool: false -> 0, true -> 1; integers are clamped into range as lax.switch does.
  int64_t idx = scalar_index(in[0], "cond");
  idx = idx < 0 ? 0 : (idx >= n ? n - 1 : idx);
  const Function& branch = body_or_throw(branches[static_cast<size_t>(idx)], "cond", "branch");
  auto out = interpret(branch, in.subspan(1));
  check_results("cond", branch, out, node.outputs);
  return out;
}

std::vector<Literal> kernel_while_(const Node& node, std::span<const Literal> in) {
  const auto& a = attrs_of<WhileAttrs>(node, "while");
  const Function& cond = body_or_throw(a.cond, "while", "cond");
  const Function& body = body_or_throw(a.body, "while", "body");
  std::vector<Literal> carry(in.begin(), in.end());
  check_results("while", body, carry, node.outputs);
  for (;;) {
    auto c = interpret(cond, carry);
    if (c.size() != 1 || c[0].type != TensorType{DType::boolean, Shape{}}) {
      throw VerifyError("[while] cond @" + cond.name() + " must return one bool[], got (" +
                        types_str(c) + ")");
    }
    if (!c[0].data<bool>()[0]) break;
    auto next = interpret(body, carry);
    check_results("while", body, next, node.outputs);
    carry = std::move(next);
  }
  return carry;
}

std::vector<Literal> kernel_scan(const Node& node, std::span<const Literal> in) {
  const auto& a = attrs_of<ScanAttrs>(node, "scan");
  const Function& body = body_or_throw(a.body, "scan", "body");
  size_t nc = static_cast<size_t>(a.num_carry);
  if (a.num_carry < 0 || nc > in.size() || nc > node.outputs.size() || a.length < 0) {
    throw VerifyError("[scan] bad num_carry " + std::to_string(a.num_carry) + " or length " +
                      std::to_string(a.length) + " for " + std::to_string(in.size()) + " operands");
  }
  std::span<const Literal> xs = in.subspan(nc);
  for (const auto& x : xs) {
    if (x.shape().rank() == 0 || x.shape()[0] != a.length) {
      throw ShapeError("[scan] xs operand " + x.type.str() + " must have leading dimension " +
                       std::to_string(a.length));
    }
  }
  std::span<const TensorType> out_types(node.outputs);
  std::span<const TensorType> carry_types = out_types.first(nc);
  std::span<const TensorType> ys_types = out_types.subspan(nc);
  std::vector<TensorType> y_types;  // one step's y: the stacked type without its leading dim
  for (const auto& t : ys_types) {
    if (t.shape.rank() == 0 || t.shape[0] != a.length)
      throw VerifyError("[scan] ys output " + t.str() + " must have leading dimension " +
                        std::to_string(a.length));
    y_types.push_back(TensorType{t.dtype, Shape(Dims(t.shape.begin() + 1, t.shape.end()))});
  }
  std::vector<TensorType> step_types(carry_types.begin(), carry_types.end());
  step_types.insert(step_types.end(), y_types.begin(), y_types.end());

  check_results("scan", body, in.first(nc), carry_types);
  return run_scan_loop(a, in, ys_types, [&](std::vector<Literal> args) {
    auto out = interpret(body, args);
    check_results("scan", body, out, step_types);
    return out;
  });
}

std::vector<Literal> kernel_checkpoint_name(const Node&, std::span<const Literal> in) {
  if (in.size() != 1) throw VerifyError("[checkpoint_name] takes one operand");
  return {in[0]};  // identity: the value shares the input's (immutable) buffer
}

std::vector<Literal> kernel_optimization_barrier(const Node&, std::span<const Literal> in) {
  return {in.begin(), in.end()};
}

std::vector<Literal> kernel_copy_to_memory_kind(const Node& node, std::span<const Literal> in) {
  if (in.size() != 1) throw VerifyError("[copy_to_memory_kind] takes one operand");
  const Literal& x = in[0];
  size_t bytes = x.type.bytes();
  Buffer b = Buffer::allocate(bytes, x.buffer.device(),
                              attrs_of<MemoryKindAttrs>(node, "copy_to_memory_kind").kind);
  if (bytes) std::memcpy(b.data(), x.buffer.data(), bytes);
  return {Literal(x.type, std::move(b))};
}

}  // namespace lazax::interp
