// `lazax run --grad`: the gradient of result 0 of @main with respect to every parameter, by the
// autodiff rules: the program is replayed on tensors (eval_function) and differentiated with
// backward(), so a .lzir file can be checked against another framework's gradients.
#include <string>

#include "cli.h"
#include "lazax/autodiff/eval_function.h"
#include "lazax/core/error.h"
#include "lazax/api/tensor.h"

namespace lazax::cli {

std::vector<Literal> program_gradients(const Function& f, const std::vector<Literal>& inputs) {
  std::vector<Tensor> args;
  for (const Literal& v : inputs) {
    Tensor t(v);
    if (is_floating(t.dtype())) t.requires_grad_();
    args.push_back(t);
  }
  std::vector<Tensor> results = autodiff::eval_function(f, args);
  if (results.empty())
    throw ValueError("[run] --grad differentiates result 0 of @" + f.name() +
                     ", but it returns nothing");
  const Tensor& y = results[0];
  if (!is_floating(y.dtype()) || y.dim() != 0)
    throw ValueError("[run] --grad differentiates result 0 of @" + f.name() +
                     ", which must be a floating-point scalar, got " + y.type_str() +
                     "; reduce it first (e.g. reduce_sum over every axis)");
  if (y.requires_grad()) y.backward();  // else it depends on no floating parameter: all zero
  std::vector<Tensor> grads;
  for (const Tensor& a : args) {
    Tensor g = a.grad();
    grads.push_back(g.defined() ? g : zeros(a.sizes(), a.dtype()));
  }
  lazax::sync();
  std::vector<Literal> out;
  for (const Tensor& g : grads) out.push_back(g.literal());
  return out;
}

}  // namespace lazax::cli
