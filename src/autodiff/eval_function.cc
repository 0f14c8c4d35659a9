// eval_function: argument checks with errors that name the parameter, then replay (the one
// place that replays a Function on tensors, autodiff/function_ad.cc).
#include "lazax/autodiff/eval_function.h"

#include <string>

#include "lazax/autodiff/function_ad.h"
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
  return replay(f, args);
}

}  // namespace lazax::autodiff
