// StableHLO text (the MLIR that JAX's `jax.jit(f).lower(...).as_text()` prints) read into a
// lazax Function: the parser (parse.cc) reads the module into a small syntax tree, the importer
// (import.cc) maps each StableHLO op to lazax primitives through one table (docs/STABLEHLO.md).
#pragma once
#include <string_view>

#include "lazax/ir/function.h"

namespace lazax::stablehlo {

// The module's `main` function (else its only public function) as a verified Function, with the
// private functions it calls as `call` sub-functions. Throws lazax::Error whose message starts
// with "[stablehlo] line L, column C:" for malformed text, an unsupported op (custom_call
// included, named) or a program that breaks a lazax shape rule.
FunctionPtr import_stablehlo(std::string_view text);

}  // namespace lazax::stablehlo
