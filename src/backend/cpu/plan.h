// The cpu backend's compiled form of a Function: a Program is a flat list of Steps, each a kernel
// function pointer with the slots (one per node output) it reads and writes. Running a Program is
// a loop over its steps; a slot is released after its last reader (liveness), so a run holds only
// the values still needed. Kernels without a fast path call the reference interpreter's kernel
// for their node (interpret_node), so every op runs from the first commit on.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "lazax/backend/backend.h"
#include "lazax/ir/function.h"

namespace lazax::cpu {

struct Step;
// The values of one run of a Program: one Literal per slot.
using Frame = std::vector<Literal>;
using StepFn = void (*)(const Step& step, Frame& frame);

// Compile-time state a kernel keeps (a oneDNN primitive, a fused kernel's program, sub-plans).
struct StepState {
  virtual ~StepState() = default;
  // What the profile's ops mode (LAZAX_CPU_PROFILE=ops) adds to the kernel's op and types.
  [[nodiscard]] virtual std::string describe() const { return {}; }
};

struct Step {
  StepFn fn = nullptr;
  const Node* node = nullptr;
  std::vector<int32_t> in, out;      // slots
  std::vector<int32_t> release;      // slots dead after this step
  std::vector<int32_t> wait;         // slots of started collectives to finish before this step
  std::shared_ptr<StepState> state;  // kernel-specific, built at compile time
  // Operand values of the step, gathered from the frame (a copy of each handle).
  std::vector<Literal> operands(const Frame& frame) const;
  // Stores the kernel's outputs into the step's output slots.
  void store(Frame& frame, std::vector<Literal> outs) const;
};

// Buffers of values a run released, kept for the next allocation of the same size (in this run
// or a later one): a step of a training loop then allocates no fresh pages, which cost more
// than the kernels here. At most `cap` bytes are kept (the plan's peak, which counts its bodies'
// peaks). The bodies of control flow (call, cond, while, scan) draw from and give back to the
// pool of the outermost Program running on the thread, so a scan's forward and backward bodies
// and the caller reuse each other's buffers rather than each keeping its own. Thread-safe.
class BufferPool {
 public:
  Buffer take(size_t bytes);
  void give(Buffer b);
  void set_cap(int64_t cap) { cap_ = cap; }

 private:
  std::mutex mu_;
  std::multimap<size_t, Buffer> free_;
  int64_t held_ = 0, cap_ = 0;
};

// An uninitialized buffer of `bytes` for a kernel's output: from the pool of the outermost
// Program being run on this thread when it has one of that size, else newly allocated.
Buffer allocate_output(size_t bytes);
// Drops `l`; its buffer goes back to that pool when nothing else holds it.
void recycle(Literal& l);

class Program {
 public:
  std::vector<Literal> run(std::span<const Literal* const> args) const;
  // Runs with the arguments already in a vector (sub-programs of control flow).
  std::vector<Literal> run_values(std::vector<Literal> args) const;
  const Function& function() const { return *f_; }
  const PlanStats& stats() const { return stats_; }

 private:
  friend class Compiler;
  FunctionPtr f_;
  int32_t num_slots_ = 0;
  std::vector<int32_t> param_slots_;
  std::vector<Step> steps_;
  std::vector<int32_t> result_slots_;
  PlanStats stats_;
  mutable BufferPool pool_;
};
using ProgramPtr = std::shared_ptr<const Program>;

// Compiles `f` (verified by the caller) and, once each, the sub-functions it reaches.
ProgramPtr compile_program(const FunctionPtr& f);

}  // namespace lazax::cpu
