// Control flow on the cpu backend: call, cond, while and scan run the Programs of their bodies,
// compiled once with the enclosing Function (the verifier has checked the bodies' signatures).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels.h"
#include "lazax/core/error.h"

namespace lazax::cpu {
namespace {

struct Bodies : StepState {
  std::vector<ProgramPtr> programs;  // call: callee; cond: branches; while: cond, body; scan: body
};

const Bodies& bodies(const Step& s) { return static_cast<const Bodies&>(*s.state); }

int64_t index_of(const Literal& l) {
  return dispatch_dtype(l.dtype(), [&]<class T>() -> int64_t {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<int64_t>(l.data<T>()[0]);
    } else {
      throw DTypeError("[cond] index must be a bool or integer scalar, got " + l.type.str());
    }
  });
}

void run_call(const Step& s, Frame& frame) {
  s.store(frame, bodies(s).programs[0]->run_values(s.operands(frame)));
}

void run_cond(const Step& s, Frame& frame) {
  std::vector<Literal> in = s.operands(frame);
  const auto& progs = bodies(s).programs;
  int64_t n = static_cast<int64_t>(progs.size());
  int64_t idx = std::clamp<int64_t>(index_of(in[0]), 0, n - 1);  // as lax.switch clamps
  in.erase(in.begin());
  s.store(frame, progs[static_cast<size_t>(idx)]->run_values(std::move(in)));
}

void run_while(const Step& s, Frame& frame) {
  const auto& progs = bodies(s).programs;
  std::vector<Literal> carry = s.operands(frame);
  for (;;) {
    std::vector<Literal> c = progs[0]->run_values(carry);
    if (!c.at(0).data<bool>()[0]) break;
    carry = progs[1]->run_values(std::move(carry));
  }
  s.store(frame, std::move(carry));
}

Literal row_of(const Literal& x, int64_t i) {
  Shape row_shape(Dims(x.shape().begin() + 1, x.shape().end()));
  TensorType t{x.dtype(), row_shape};
  size_t bytes = t.bytes();
  Literal row(t, Buffer::allocate_uninitialized(bytes));
  if (bytes) {
    std::memcpy(row.buffer.data(),
                static_cast<const char*>(x.buffer.data()) + static_cast<size_t>(i) * bytes, bytes);
  }
  return row;
}

void run_scan(const Step& s, Frame& frame) {
  const auto& a = s.node->attr<ScanAttrs>();
  const Program& body = *bodies(s).programs[0];
  std::vector<Literal> in = s.operands(frame);
  size_t nc = static_cast<size_t>(a.num_carry);
  std::vector<Literal> carry(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(nc));
  std::vector<Literal> ys;
  // (Every row is written below: no zero fill, whose first touch of fresh pages was a large
  // part of a scan over layers' stacked gradients.)
  for (size_t k = nc; k < s.node->outputs.size(); ++k) {
    const TensorType& t = s.node->outputs[k];
    ys.emplace_back(t, Buffer::allocate_uninitialized(t.bytes()));
  }
  std::vector<Literal> args;
  for (int64_t step = 0; step < a.length; ++step) {
    int64_t i = a.reverse ? a.length - 1 - step : step;
    args.assign(carry.begin(), carry.end());
    for (size_t k = nc; k < in.size(); ++k) args.push_back(row_of(in[k], i));
    std::vector<Literal> out = body.run_values(std::move(args));
    for (size_t k = 0; k < ys.size(); ++k) {
      size_t bytes = out[nc + k].type.bytes();
      if (bytes) {
        std::memcpy(static_cast<char*>(ys[k].buffer.data()) + static_cast<size_t>(i) * bytes,
                    out[nc + k].buffer.data(), bytes);
      }
    }
    out.resize(nc);
    carry = std::move(out);
    args.clear();
  }
  for (auto& y : ys) carry.push_back(std::move(y));
  s.store(frame, std::move(carry));
}

// The node's bodies in the order the kernels above index them.
std::vector<FunctionPtr> node_bodies(const Node& node) {
  if (const auto* c = std::get_if<CallAttrs>(&node.attrs)) return {c->callee};
  if (const auto* c = std::get_if<CondAttrs>(&node.attrs)) return c->branches;
  if (const auto* w = std::get_if<WhileAttrs>(&node.attrs)) return {w->cond, w->body};
  if (const auto* sc = std::get_if<ScanAttrs>(&node.attrs)) return {sc->body};
  throw VerifyError("[cpu] " + std::string(op_name(node.op)) + " carries no bodies");
}

}  // namespace

std::shared_ptr<StepState> plan_control(const Node& node, const SubCompiler& sub) {
  auto b = std::make_shared<Bodies>();
  for (const FunctionPtr& g : node_bodies(node)) b->programs.push_back(sub(g));
  return b;
}

StepFn control_kernel(OpCode op) {
  switch (op) {
    case OpCode::call:
      return &run_call;
    case OpCode::cond:
      return &run_cond;
    case OpCode::while_:
      return &run_while;
    case OpCode::scan:
      return &run_scan;
    default:
      throw VerifyError("[cpu] " + std::string(op_name(op)) + " is not a control-flow op");
  }
}

int64_t control_peak_bytes(const StepState& state) {
  int64_t peak = 0;
  for (const auto& p : static_cast<const Bodies&>(state).programs)
    peak = std::max(peak, p->stats().peak_device_bytes);
  return peak;
}

}  // namespace lazax::cpu
