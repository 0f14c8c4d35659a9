// load_stablehlo: the imported Function replayed as primitives (eval_function) inside one
// assume_pure function, so that the one pure-function mechanism traces, caches and
// differentiates it.
#include "lazax/stablehlo/load.h"

#include <fstream>
#include <sstream>

#include "lazax/autodiff/eval_function.h"
#include "lazax/autodiff/function_ad.h"
#include "lazax/autodiff/pure.h"
#include "lazax/stablehlo/stablehlo.h"

namespace lazax {

struct StableHloFunction::Impl {
  using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  explicit Impl(const FunctionPtr& p)
      : pure(assume_pure(
            Fn([p](const std::vector<Tensor>& args) { return autodiff::eval_function(*p, args); }),
            PureOptions{.name = "stablehlo:" + p->name()})) {}
  PureFunction<Fn> pure;
};

StableHloFunction::StableHloFunction(FunctionPtr program)
    : program_(std::move(program)), impl_(std::make_shared<Impl>(program_)) {}

std::vector<Tensor> StableHloFunction::operator()(const std::vector<Tensor>& args) const {
  if (args.size() != static_cast<size_t>(program_->num_params())) {
    throw ValueError("[stablehlo] @" + program_->name() + " takes " +
                     std::to_string(program_->num_params()) + " arguments, got " +
                     std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    TensorType want = program_->param_type(static_cast<int>(i));
    if (!args[i].defined()) {
      throw ValueError("[stablehlo] argument " + std::to_string(i) + " of @" + program_->name() +
                       " is an undefined tensor; expected " + want.str());
    }
    TensorType got{args[i].dtype(), args[i].shape()};
    if (!(got == want)) {
      throw DTypeError("[stablehlo] argument " + std::to_string(i) + " of @" + program_->name() +
                       ": expected " + want.str() + ", given " + got.str() +
                       " (convert or reshape the argument; the program has static types)");
    }
  }
  return impl_->pure(args);
}

size_t StableHloFunction::cache_size() const { return impl_->pure.cache_size(); }

StableHloFunction load_stablehlo(std::string_view path_or_text) {
  if (path_or_text.find("func.func") != std::string_view::npos)
    return StableHloFunction(stablehlo::import_stablehlo(path_or_text));
  std::ifstream in{std::string(path_or_text), std::ios::binary};
  if (!in) throw IOError("[stablehlo] cannot open '" + std::string(path_or_text) + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return StableHloFunction(stablehlo::import_stablehlo(ss.str()));
}

namespace stablehlo {
FunctionPtr vjp_program(const FunctionPtr& f) {
  std::vector<bool> wrt;
  for (const TensorType& t : f->param_types()) wrt.push_back(is_floating(t.dtype));
  return autodiff::vjp_programs(f, wrt).joint;
}
}  // namespace stablehlo

}  // namespace lazax
