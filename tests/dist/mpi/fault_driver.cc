// A loop of psum steps on 2 ranks in which rank 1 fails at step 3, as tests/dist/mpi/faults.py
// asks: `raise` (a lazax::Error, which the program ends the job with, as the lazax tool does),
// `kill` (SIGKILL) or `hang` (sleeps: rank 0 waits at the next collective past
// LAZAX_DIST_TIMEOUT_S). Every mode must end the whole job, non-zero, naming the rank.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "lazax/lazax.h"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    lazax::Tensor x = lazax::ones({4});
    for (int step = 0;; ++step) {
      if (step == 3 && lazax::dist::rank() == 1) {
        if (mode == "raise") throw lazax::ValueError("[fault_driver] rank 1 raised at step 3");
        if (mode == "kill") std::raise(SIGKILL);
        if (mode == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
      }
      x = lazax::psum(x) / 2.0;
      lazax::sync();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (step == 500) return 3;  // the fault did not happen
    }
  } catch (const lazax::Error& e) {
    lazax::dist::abort_job(e.what());
  }
}
