// load_stablehlo: a StableHLO program as a pure, differentiable lazax function. Each call is one
// assume_pure call (traced once per signature, one `call` node in the lazy graph; grad, vjp and
// jvp go through lazax's own rules on the imported primitives). And the other way: a C++
// function, or its VJP, traced and exported as StableHLO.
#pragma once
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/pure.h"
#include "lazax/ir/function.h"
#include "lazax/stablehlo/export.h"

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

namespace stablehlo {
// f's reverse mode as one program, what JAX lowers for `lambda *a: jax.vjp(f, *a[:n])[1](*a[n:])`:
// parameters f's inputs, then one cotangent per floating result of f; results the cotangent of
// each floating input (the forward inlined, nothing captured). Throws for what lazax cannot
// differentiate (a while loop, as in JAX).
FunctionPtr vjp_program(const FunctionPtr& f);
}  // namespace stablehlo

// A C++ function as StableHLO, what jax.jit(f).lower(*args).as_text() gives for a JAX one: f
// traced on arguments shaped like `args` (pytrees flattened in order; the tensors f captures
// become parameters after them), in the generic form. For the pretty form, export
// `*trace(f, args...)` with stablehlo::export_stablehlo.
template <class F, class... Args>
  requires(!std::is_same_v<std::decay_t<F>, Function>)
std::string export_stablehlo(F f, const Args&... args) {
  return stablehlo::export_stablehlo(*trace(std::move(f), args...));
}
// The same for f's VJP (stablehlo::vjp_program of the trace).
template <class F, class... Args>
std::string export_vjp_stablehlo(F f, const Args&... args) {
  return stablehlo::export_stablehlo(*stablehlo::vjp_program(trace(std::move(f), args...)));
}

}  // namespace lazax
