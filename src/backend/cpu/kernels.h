// The cpu backend's kernels, each chosen at compile time for one node (select_kernel) and run as
// a Step. Families: gemm.cc (dot_general through oneDNN), fused.cc (elementwise chains),
// layout.cc (broadcast_in_dim, transpose, slice, concatenate, pad), indexing.cc (row gathers and
// scatters), reduce.cc (f32 reductions), control.cc (call, cond, while, scan running their
// bodies' Programs); every other node runs the reference interpreter's kernel (run_fallback).
#pragma once
#include <functional>
#include <memory>
#include <span>

#include "lazax/dist/collectives.h"
#include "plan.h"

namespace lazax::cpu {

// Compiles a sub-function once per compile (a body shared by several nodes is planned once).
using SubCompiler = std::function<ProgramPtr(const FunctionPtr&)>;

void run_fallback(const Step& step, Frame& frame);

// dot_general on f32/bf16 through oneDNN: the kernel and its state (a primitive for this node's
// shapes), or a null state when the node is not handled (other dtypes, empty shapes). `out`,
// when given, is the f32 type of a convert folded into a bf16 dot (dot_convert_folds).
std::shared_ptr<StepState> plan_gemm(const Node& node, std::span<const TensorType> in,
                                     const TensorType* out = nullptr);
void run_gemm(const Step& step, Frame& frame);
// convert between f32 and bf16 as one parallel loop (convert.cc); null for other dtypes.
std::shared_ptr<StepState> plan_convert(const Node& node, std::span<const TensorType> in);
void run_convert(const Step& step, Frame& frame);
// Per node: for a bf16 dot_general whose only use is a convert to f32 (neither a result nor in
// a fusion group), the index of that convert, which the dot's step then writes in f32; else -1.
std::vector<int32_t> dot_convert_folds(const Function& f, std::span<const int32_t> group_of);

// broadcast_in_dim, transpose, slice, concatenate and pad without interior padding or negative
// edges (any dtype) as strided copies; null for what the interpreter's kernel keeps.
std::shared_ptr<StepState> plan_layout(const Node& node, std::span<const TensorType> in);
void run_layout(const Step& step, Frame& frame);

// gather and scatter_add of whole rows of an f32 [N, row...] operand (an embedding and its
// gradient); null for any other gather or scatter.
std::shared_ptr<StepState> plan_indexing(const Node& node, std::span<const TensorType> in);
void run_indexing(const Step& step, Frame& frame);

// reduce_sum / reduce_max / reduce_min of f32 over one block of adjacent axes.
std::shared_ptr<StepState> plan_reduce(const Node& node, std::span<const TensorType> in);
void run_reduce(const Step& step, Frame& frame);

// The collectives (all_reduce, all_gather, ...): MPI calls through lazax/dist, writing into a
// buffer of the Program's pool, in the same order on every rank (schedule_collectives keeps
// it). An all_reduce or reduce_scatter is started (interp::start_collective) and left to the
// run's PendingCollectives: the first step that reads its result waits for it (Step::wait).
void run_collective(const Step& step, Frame& frame);
// Whether `step` is an all_reduce or reduce_scatter: one that may start and be waited for later
// (what schedule_collectives moves and Step::wait finishes).
bool starts_collective(const Step& step);

// The collectives one run of a Program started and has not finished. Each keeps its operand
// and result alive until it is waited for; destroying the set waits for all of them.
class PendingCollectives {
 public:
  PendingCollectives();
  ~PendingCollectives();
  PendingCollectives(const PendingCollectives&) = delete;
  PendingCollectives& operator=(const PendingCollectives&) = delete;

  [[nodiscard]] bool empty() const { return entries_.empty(); }
  // Waits for the collective writing `slot`, if one is pending.
  void wait(int32_t slot);
  // Lets MPI move the pending collectives on (it does only inside MPI calls).
  void progress();
  void wait_all();

 private:
  friend void run_collective(const Step& step, Frame& frame);
  struct Entry {
    int32_t slot;
    Literal in, out;  // held until the Request is done (declared first: destroyed last)
    dist::Request req;
  };
  void finish(Entry& e);
  std::vector<Entry> entries_;
  PendingCollectives* saved_;  // the set of the run this one's Program runs inside
};

// Reorders `steps` so that each all_reduce and reduce_scatter, with the steps that only feed
// it, runs as soon as its operand can be computed, and the collectives keep their order among
// themselves and relative to control flow (whose bodies may hold collectives): a started
// collective then overlaps the steps after it. Steps that read a collective's result wait for
// it (Step::wait, set by the caller's liveness plan).
void schedule_collectives(std::vector<Step>& steps, std::span<const int32_t> result_slots);

// call, cond, while, scan: the sub-Programs of the node's bodies.
std::shared_ptr<StepState> plan_control(const Node& node, const SubCompiler& sub);
StepFn control_kernel(OpCode op);
// The largest peak of the node's sub-Programs (what a step adds to its Program's peak).
int64_t control_peak_bytes(const StepState& state);

}  // namespace lazax::cpu
