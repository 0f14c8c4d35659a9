// TEMPORARY weak stubs so the tree links while kernels are being written; delete when every
// kernel exists.
#include "kernels.h"
#include "lazax/core/error.h"
namespace lazax::interp {
}
