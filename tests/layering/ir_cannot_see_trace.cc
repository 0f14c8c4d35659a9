// Layering probe (tests/layering/CMakeLists.txt): the ir layer sits below trace, so this include
// must fail to build with "No such file".
#include "lazax/trace/graph.h"

int lazax_layering_probe() { return 0; }
