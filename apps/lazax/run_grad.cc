// `lazax run --grad` and `--jvp`: the gradient of result 0 of @main with respect to every
// parameter (reverse mode, backward()) and the derivative of every result along given tangents
// (forward mode, jvp), by the autodiff rules: the program is replayed on tensors (eval_function),
// so a .lzir file can be checked against another framework's derivatives.
#include <string>
#include <tuple>

#include "cli.h"
#include "lazax/api/tensor.h"
#include "lazax/autodiff/eval_function.h"
#include "lazax/autodiff/transforms.h"
#include "lazax/core/error.h"

namespace lazax::cli {

void check_gradient_signature(const Function& f) {
  if (f.result_types().empty())
    throw ValueError("[run] --grad differentiates result 0 of @" + f.name() +
                     ", but it returns nothing");
  const TensorType& y = f.result_types()[0];
  if (!is_floating(y.dtype) || y.shape.rank() != 0) {
    throw ValueError("[run] --grad differentiates result 0 of @" + f.name() +
                     ", which must be a floating-point scalar, got " + y.str() +
                     "; reduce it first (e.g. reduce_sum over every axis)");
  }
}

std::vector<Literal> program_gradients(const Function& f, const std::vector<Literal>& inputs) {
  check_gradient_signature(f);
  std::vector<Tensor> args;
  for (const Literal& v : inputs) {
    Tensor t(v);
    if (is_floating(t.dtype())) t.requires_grad_();
    args.push_back(t);
  }
  std::vector<Tensor> results = autodiff::eval_function(f, args);
  const Tensor& y = results[0];
  if (y.requires_grad()) y.backward();  // else it depends on no floating parameter: all zero
  std::vector<Tensor> grads;
  for (const Tensor& a : args) {
    Tensor g = a.grad();
    grads.push_back(g.defined() ? g : zeros(a.sizes(), a.dtype()));
  }
  lazax::sync();
  std::vector<Literal> out;
  out.reserve(grads.size());
  for (const Tensor& g : grads) out.push_back(g.literal());
  return out;
}

std::vector<Literal> program_jvp(const Function& f, const std::vector<Literal>& inputs,
                                 const std::vector<Literal>& tangents) {
  std::vector<Tensor> primals, tans;
  for (size_t i = 0; i < inputs.size(); ++i) {
    primals.emplace_back(inputs[i]);
    // An integer parameter has no tangent (JAX's float0): whatever the file holds is not used.
    tans.push_back(is_floating(inputs[i].dtype())
                       ? Tensor(tangents[i])
                       : zeros(primals.back().sizes(), inputs[i].dtype()));
  }
  auto [outs, out_tans] =
      jvp([&f](const std::vector<Tensor>& xs) { return autodiff::eval_function(f, xs); },
          std::make_tuple(primals), std::make_tuple(tans));
  std::vector<Tensor> result;
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor& t = out_tans[i];
    result.push_back(
        t.defined() && is_floating(outs[i].dtype()) ? t : zeros(outs[i].sizes(), outs[i].dtype()));
  }
  lazax::sync();
  std::vector<Literal> out;
  out.reserve(result.size());
  for (const Tensor& t : result) out.push_back(t.literal());
  return out;
}

}  // namespace lazax::cli
