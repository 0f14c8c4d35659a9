// Layering probe (tests/layering/CMakeLists.txt): the passes layer sits below backend (the cpu
// backend runs the passes), so this include must fail to build with "No such file".
#include "lazax/backend/backend.h"

int lazax_layering_probe() { return 0; }
