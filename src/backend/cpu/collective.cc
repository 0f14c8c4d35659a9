// The collectives' step: the interpreter's semantics (interp/collective.h, the MPI calls) into an
// output buffer from the Program's pool; all_reduce and reduce_scatter are started and finished
// by the first step that reads them (PendingCollectives).
#include "lazax/interp/collective.h"

#include <algorithm>

#include "kernels.h"
#include "lazax/interp/interpreter.h"

namespace lazax::cpu {
namespace {
thread_local PendingCollectives* t_pending = nullptr;  // of the run on this thread
}  // namespace

PendingCollectives::PendingCollectives() : saved_(t_pending) { t_pending = this; }

PendingCollectives::~PendingCollectives() {
  // On an error mid-run: MPI writes into the buffers until each Request is done (~Request
  // waits, or ends the job when MPI failed).
  entries_.clear();
  t_pending = saved_;
}

void PendingCollectives::finish(Entry& e) {
  e.req.wait();
  recycle(e.in);  // the operand's buffer back to the pool (the frame released it)
}

void PendingCollectives::wait(int32_t slot) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.slot == slot; });
  if (it == entries_.end()) return;
  finish(*it);
  entries_.erase(it);
}

void PendingCollectives::progress() {
  // One MPI_Test moves every pending collective on (MPI's progress engine); the first that has
  // not finished is tested (a finished one answers without calling MPI).
  for (Entry& e : entries_)
    if (!e.req.test()) return;
}

void PendingCollectives::wait_all() {
  for (Entry& e : entries_) finish(e);
  entries_.clear();
}

bool starts_collective(const Step& step) {
  return step.fn == &run_collective &&
         (step.node->op == OpCode::all_reduce || step.node->op == OpCode::reduce_scatter);
}

void run_collective(const Step& step, Frame& frame) {
  const Node& node = *step.node;
  if (node.op == OpCode::axis_index) {  // no data: the rank, as the interpreter gives it
    step.store(frame, interpret_node(node, {}));
    return;
  }
  const TensorType& t = node.outputs[0];
  Literal out(t, allocate_output(t.bytes()));
  const Literal& in = frame[static_cast<size_t>(step.in[0])];
  dist::Request req = interp::start_collective(node, in, out);
  if (req.active()) {
    if (t_pending) {
      t_pending->entries_.push_back({step.out[0], in, out, std::move(req)});
    } else {
      req.wait();
    }
  }
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
