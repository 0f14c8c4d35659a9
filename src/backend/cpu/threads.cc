// One thread pool for the cpu backend's kernels and oneDNN's: Debian's oneDNN runs on OpenMP
// (libgomp), so lazax's kernels use OpenMP too. The pool has the machine's cores, or
// LAZAX_NUM_THREADS. Kernels split work into static chunks, so a given thread count always gives
// the same results.
#include <omp.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "kernels.h"
#include "lazax/core/error.h"

namespace lazax::cpu {

void init_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("LAZAX_NUM_THREADS");
    if (!env || !*env) return;
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (*end != '\0' || n < 1 || n > 4096) {
      throw ValueError("[cpu] LAZAX_NUM_THREADS='" + std::string(env) +
                       "' is not a thread count; set it to a positive integer or unset it");
    }
    omp_set_num_threads(static_cast<int>(n));
  });
}

}  // namespace lazax::cpu

namespace lazax {

void set_num_threads(int n) {
  if (n < 1) {
    throw ValueError("[set_num_threads] needs at least one thread, got " + std::to_string(n));
  }
  cpu::init_threads();  // (an invalid LAZAX_NUM_THREADS is still reported)
  omp_set_num_threads(n);
}

}  // namespace lazax
