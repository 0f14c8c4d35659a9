// Elementwise fusion: chains and trees of f32 elementwise ops of one shape (with scalar operands
// and broadcasts of scalars) run as one kernel, a loop interpreter over cache-sized tiles of the
// elements: the values inside the group never reach memory. fuse_groups picks the groups while
// the Program is compiled; run_fused runs one.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "plan.h"

namespace lazax::cpu {

struct FusionGroup {
  std::vector<int32_t> members;  // node indices, in order
};

// Groups of at least two fusible nodes, each runnable at the place of its last member (every
// value a member reads from outside the group is made before that, and every reader of a
// member outside the group comes after it).
std::vector<FusionGroup> fuse_groups(const Function& f);

// `f` with a copy of a broadcast_in_dim for each reader fused in another of `groups` (f's
// groups) than the broadcast, placed just before the reader so that it joins the reader's
// group, which then reads the broadcast's operand in place (a scalar, a value per row, a bias)
// instead of loading the broadcast written out whole by the group that made it (a softmax's
// row sums, which its backward reads too, were written at the scores' size; a scalar's
// broadcast shared by every layer once per step). `f` itself when no reader needs a copy. XLA
// duplicates broadcasts into its fusions likewise.
FunctionPtr split_shared_broadcasts(const FunctionPtr& f, const std::vector<FusionGroup>& groups);

// The fused kernel's state for `g`: `in_slots` and `out_slots` receive the slots it reads and
// writes, in the order of `slot_of` (node index, output) -> slot.
struct FusedKernel;
std::shared_ptr<StepState> plan_fused(const Function& f, const FusionGroup& g,
                                      const std::vector<int32_t>& slot_base,
                                      const std::vector<bool>& used_outside,
                                      std::vector<int32_t>& in_slots,
                                      std::vector<int32_t>& out_slots);
// Once the step's releases are known: which outputs may take the buffer of an input that dies at
// the step (an intermediate, read tile by tile); the bytes they would have allocated.
int64_t plan_fused_donors(Step& step, const std::vector<char>& param_slot);
void run_fused(const Step& step, Frame& frame);

}  // namespace lazax::cpu
