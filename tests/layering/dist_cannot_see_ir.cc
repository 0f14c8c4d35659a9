// Layering probe (tests/layering/CMakeLists.txt): dist (MPI, the processes of a job) sits on core
// alone, below ir, so this include must fail to build with "No such file".
#include "lazax/ir/function.h"

int lazax_layering_probe() { return 0; }
