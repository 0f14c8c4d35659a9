// The interpreter's loop: one slot per node output, nodes run in order.
#include "lazax/interp/interpreter.h"

#include <array>
#include <string>

#include "kernels.h"
#include "lazax/core/error.h"
#include "lazax/ir/printer.h"

namespace lazax {
namespace {

const std::array<interp::Kernel, kNumOps> kKernels = {{
#define LAZAX_KERNEL_ROW(name, attrs, arity, flags, rule) &interp::kernel_##name,
    LAZAX_OPS(LAZAX_KERNEL_ROW)
#undef LAZAX_KERNEL_ROW
}};

}  // namespace

std::vector<Literal> interpret(const Function& f, std::span<const Literal> args) {
  return interpret(f, std::span<const Literal* const>(pointers_to(args)));
}

std::vector<Literal> interpret(const Function& f, std::span<const Literal* const> args) {
  if (static_cast<int>(args.size()) != f.num_params()) {
    throw ValueError("[interpret] @" + f.name() + " takes " + std::to_string(f.num_params()) +
                     " arguments, got " + std::to_string(args.size()));
  }
  for (int i = 0; i < f.num_params(); ++i) {
    if (args[static_cast<size_t>(i)]->type != f.param_type(i)) {
      throw ValueError("[interpret] argument " + std::to_string(i) + " of @" + f.name() +
                       " should be " + f.param_type(i).str() + ", got " +
                       args[static_cast<size_t>(i)]->type.str());
    }
  }
  std::vector<std::vector<Literal>> values(f.nodes().size());
  for (int i = 0; i < f.num_params(); ++i)
    values[static_cast<size_t>(i)] = {*args[static_cast<size_t>(i)]};
  std::vector<Literal> in;
  for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    in.clear();
    for (auto v : n.operands)
      in.push_back(values[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)]);
    try {
      values[i] = kKernels[static_cast<size_t>(n.op)](n, in);
    } catch (OutOfMemoryError& e) {
      e.add_note("running `" + print_node(f, i, {.debug_info = false}) + "` in @" + f.name());
      throw;
    }
  }
  std::vector<Literal> out;
  for (auto r : f.results())
    out.push_back(values[static_cast<size_t>(r.node)][static_cast<size_t>(r.index)]);
  return out;
}

std::vector<Literal> interpret_node(const Node& node, std::span<const Literal> operands) {
  return kKernels[static_cast<size_t>(node.op)](node, operands);
}

namespace interp {
std::vector<Literal> kernel_parameter(const Node&, std::span<const Literal>) {
  throw VerifyError("[interpret] parameter node after the parameter list");
}
}  // namespace interp

}  // namespace lazax
