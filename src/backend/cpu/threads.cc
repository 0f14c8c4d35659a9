// One thread pool for the cpu backend's kernels and oneDNN's: Debian's oneDNN runs on OpenMP
// (libgomp), so lazax's kernels use OpenMP too. The pool has the machine's cores, or what
// set_num_threads says (Options::num_threads, LAZAX_NUM_THREADS, through the Context). Kernels
// split work into static chunks, so a given thread count always gives the same results.
#include <omp.h>

#include <string>

#include "lazax/backend/backend.h"
#include "lazax/core/error.h"

namespace lazax {

void set_num_threads(int n) {
  if (n < 1) {
    throw ValueError("[set_num_threads] needs at least one thread, got " + std::to_string(n));
  }
  omp_set_num_threads(n);
}

}  // namespace lazax
