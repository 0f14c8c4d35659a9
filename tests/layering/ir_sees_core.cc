// Layering probe (tests/layering/CMakeLists.txt): the ir layer may include its own headers and the
// core layer's. This file must build.
#include "lazax/core/dtype.h"
#include "lazax/ir/op.h"

int lazax_layering_probe() { return static_cast<int>(lazax::OpCode::add); }
