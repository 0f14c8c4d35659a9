// eval_function: a Function replayed node by node with apply_primitive.
#include "lazax/autodiff/eval_function.h"

#include <string>

#include "lazax/autodiff/rules.h"
#include "lazax/core/error.h"

namespace lazax::autodiff {

std::vector<Tensor> eval_function(const Function& f, const std::vector<Tensor>& args) {
  const int n = f.num_params();
  if (static_cast<int>(args.size()) != n)
    throw ValueError("[eval_function] @" + f.name() + " takes " + std::to_string(n) +
                     " arguments, got " + std::to_string(args.size()));
  for (int i = 0; i < n; ++i) {
    const Tensor& a = args[static_cast<size_t>(i)];
    if (!a.defined())
      throw ValueError("[eval_function] argument " + std::to_string(i) + " of @" + f.name() +
                       " is an undefined tensor");
    const TensorType want = f.param_type(i);
    if (a.dtype() != want.dtype)
      throw DTypeError("[eval_function] argument " + std::to_string(i) + " of @" + f.name() +
                       " must be " + want.str() + ", got " + a.type_str());
    if (a.shape() != want.shape)
      throw ShapeError("[eval_function] argument " + std::to_string(i) + " of @" + f.name() +
                       " must be " + want.str() + ", got " + a.type_str());
  }
  // values[node][output]
  std::vector<std::vector<Tensor>> values(f.nodes().size());
  for (size_t k = 0; k < f.nodes().size(); ++k) {
    const Node& node = f.nodes()[k];
    if (node.op == OpCode::parameter) {
      values[k] = {args[static_cast<size_t>(node.attr<ParameterAttrs>().index)]};
      continue;
    }
    std::vector<Tensor> operands;
    operands.reserve(node.operands.size());
    for (const ValueRef& v : node.operands)
      operands.push_back(values[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)]);
    values[k] = apply_primitive(node.op, node.attrs, operands);
  }
  std::vector<Tensor> results;
  for (const ValueRef& r : f.results())
    results.push_back(values[static_cast<size_t>(r.node)][static_cast<size_t>(r.index)]);
  return results;
}

}  // namespace lazax::autodiff
