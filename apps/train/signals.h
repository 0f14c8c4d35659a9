// The signals of `lazax train`. While a RunSignals lives: SIGINT and SIGTERM (Ctrl-C, a
// scheduler's preemption) ask the loop to stop after the current step (stop_signal() gives the
// signal), and a second one of either ends the process at once by the default action; SIGUSR1
// asks for a checkpoint (checkpoint_requested() is true once per signal); SIGXFSZ is ignored, so
// that a write past RLIMIT_FSIZE fails with EFBIG (an error that keeps the previous checkpoint)
// instead of killing the process. The destructor restores the previous dispositions.
#pragma once
#include <csignal>

namespace lazax::train {

class RunSignals {
 public:
  RunSignals();
  ~RunSignals();
  RunSignals(const RunSignals&) = delete;
  RunSignals& operator=(const RunSignals&) = delete;

  // 0, or the first SIGINT / SIGTERM received.
  static int stop_signal();
  // Whether a SIGUSR1 came since the last call.
  static bool checkpoint_requested();

 private:
  struct sigaction previous_[4];
};

// The exit status of a run stopped by `sig`, as a shell reports a process the signal ended:
// 128 + sig (130 for SIGINT, 143 for SIGTERM).
inline int interrupted_status(int sig) { return 128 + sig; }

}  // namespace lazax::train
