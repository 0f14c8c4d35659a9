#include "signals.h"

#include <atomic>

namespace lazax::train {
namespace {

std::atomic<int> g_stop{0};
std::atomic<bool> g_checkpoint{false};
constexpr int kSignals[4] = {SIGINT, SIGTERM, SIGUSR1, SIGXFSZ};

extern "C" void on_stop(int sig) {
  g_stop.store(sig);
  // A second SIGINT or SIGTERM ends the process (sigaction is async-signal-safe).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGINT, &dfl, nullptr);
  ::sigaction(SIGTERM, &dfl, nullptr);
}

extern "C" void on_usr1(int /*sig*/) { g_checkpoint.store(true); }

}  // namespace

RunSignals::RunSignals() {
  g_stop.store(0);
  g_checkpoint.store(false);
  for (int i = 0; i < 4; ++i) {
    struct sigaction sa {};
    sa.sa_handler = kSignals[i] == SIGUSR1 ? on_usr1 : kSignals[i] == SIGXFSZ ? SIG_IGN : on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(kSignals[i], &sa, &previous_[i]);
  }
}

RunSignals::~RunSignals() {
  for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

int RunSignals::stop_signal() { return g_stop.load(); }

bool RunSignals::checkpoint_requested() { return g_checkpoint.exchange(false); }

}  // namespace lazax::train
