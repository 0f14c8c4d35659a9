// Layering probe (tests/layering/CMakeLists.txt): the api layer sits below autodiff, so this
// include must fail to build with "No such file".
#include "lazax/autodiff/tape.h"

int lazax_layering_probe() { return 0; }
