// load_stablehlo: a StableHLO program as a pure, differentiable lazax function. Each call is one
// assume_pure call (traced once per signature, one `call` node in the lazy graph; grad, vjp and
// jvp go through lazax's own rules on the imported primitives).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/ir/function.h"

namespace lazax {

class StableHloFunction {
 public:
  explicit StableHloFunction(FunctionPtr program);
  // One tensor per parameter of the program's @main; throws ValueError/DTypeError naming the
  // argument, the expected and the given type when they do not fit.
  std::vector<Tensor> operator()(const std::vector<Tensor>& args) const;
  const FunctionPtr& program() const { return program_; }
  // Number of signatures traced so far (the assume_pure cache: one per argument structure).
  size_t cache_size() const;

 private:
  FunctionPtr program_;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// `path_or_text`: StableHLO text (it contains "func.func") or the path of a .mlir file.
StableHloFunction load_stablehlo(std::string_view path_or_text);

}  // namespace lazax
