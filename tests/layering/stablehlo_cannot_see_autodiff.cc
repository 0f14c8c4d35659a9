// Layering probe (tests/layering/CMakeLists.txt): the StableHLO parser and importer
// (lazax_stablehlo) link only ir, so this include must fail to build with "No such file".
#include "lazax/autodiff/pure.h"

int lazax_layering_probe() { return 0; }
