// Built by ./lazax.sh test with pkg-config alone, no CMake:
//   g++ -std=c++20 pkg_config_check.cc $(pkg-config --cflags --libs lazax)
// It computes one gradient, and checks that linking lazax left the program's malloc alone
// (lazax allocates its own objects with a privately loaded mimalloc: docs/DECISIONS.md).
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "lazax/core/pool_allocator.h"
#include "lazax/lazax.h"

using namespace lazax;

int main() {
  Tensor x = from_vector<float>({1, 2, 3}, {3});
  Tensor g = grad([](const Tensor& t) { return (t * t).sum(); })(x);  // 2x
  std::vector<float> got = g.to_vector<float>();
  Dl_info info{};
  const char* malloc_from = dladdr(dlsym(RTLD_DEFAULT, "malloc"), &info) ? info.dli_fname : "?";
  std::printf("grad of sum(x^2) at (1, 2, 3): (%g, %g, %g); malloc from %s; lazax blocks from %s\n",
              got[0], got[1], got[2], malloc_from, pool_allocator_name());
  if (got != std::vector<float>{2, 4, 6}) return 1;
  if (!std::strstr(malloc_from, "libc.so")) {
    std::fprintf(stderr, "pkg_config_check: linking lazax replaced the program's malloc\n");
    return 1;
  }
  return 0;
}
