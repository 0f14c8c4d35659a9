// Layering probe (tests/layering/CMakeLists.txt): the interpreter is a layer above ir (ir holds
// the definitions alone), so this include must fail to build with "No such file".
#include "lazax/interp/interpreter.h"

int lazax_layering_probe() { return 0; }
