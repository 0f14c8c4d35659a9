// export_stablehlo: a lazax Function as StableHLO text (the MLIR that XLA, IREE and JAX read),
// one row per lazax primitive in src/stablehlo/export.cc; the inverse of import_stablehlo for
// every primitive with a StableHLO counterpart (docs/STABLEHLO.md lists those without).
#pragma once
#include <string>

#include "lazax/ir/function.h"

namespace lazax::stablehlo {

// generic: every op as `"stablehlo.op"(...) {...} : (...) -> ...`, which `mlir-opt
// --allow-unregistered-dialect` parses; pretty: elementwise ops, constants and returns in the
// short form JAX prints (the others stay generic, as JAX prints case).
enum class Form { generic, pretty };

// A module with `@main` (f) and one private function per called sub-function. Throws
// lazax::Error "[stablehlo export] OP has no StableHLO counterpart ..." for the primitives that
// have none (why_not_exported says which).
std::string export_stablehlo(const Function& f, Form form = Form::generic);

// Why `op` cannot be exported, or empty when it can.
std::string why_not_exported(OpCode op);

}  // namespace lazax::stablehlo
