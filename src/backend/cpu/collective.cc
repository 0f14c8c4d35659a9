// The collectives' step: the interpreter's semantics (interp/collective.h, the MPI calls) into an
// output buffer from the Program's pool.
#include "lazax/interp/collective.h"

#include "kernels.h"
#include "lazax/interp/interpreter.h"

namespace lazax::cpu {

void run_collective(const Step& step, Frame& frame) {
  const Node& node = *step.node;
  if (node.op == OpCode::axis_index) {  // no data: the rank, as the interpreter gives it
    step.store(frame, interpret_node(node, {}));
    return;
  }
  const TensorType& t = node.outputs[0];
  Literal out(t, allocate_output(t.bytes()));
  interp::run_collective(node, frame[static_cast<size_t>(step.in[0])], out);
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
