// Control flow on the cpu backend: call, cond, while and scan run the Programs of their bodies,
// compiled once with the enclosing Function (the verifier has checked the bodies' signatures).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels.h"
#include "lazax/core/error.h"
#include "lazax/interp/scan_loop.h"

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

void run_scan(const Step& s, Frame& frame) {
  const auto& a = s.node->attr<ScanAttrs>();
  const Program& body = *bodies(s).programs[0];
  const std::span<const TensorType> ys_types =
      std::span<const TensorType>(s.node->outputs).subspan(static_cast<size_t>(a.num_carry));
  // The rows and the stacked ys come from the pool, so each step reuses the last one's rows.
  s.store(frame, interp::run_scan_loop(
                     a, s.operands(frame), ys_types,
                     [&](std::vector<Literal> args) { return body.run_values(std::move(args)); },
                     &allocate_output));
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
