#include "cli/stop_signals.hpp"

#include <signal.h>
#include <time.h>

#include <cstdint>

namespace hone::cli {

namespace {

std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};
std::atomic<std::int64_t> first_ns{0};

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

extern "C" void on_stop_signal(int sig) {
  const std::int64_t now = monotonic_ns();
  int none = 0;
  if (stop_signal.compare_exchange_strong(none, sig)) {
    first_ns = now;
    stop_requested = true;
    return;
  }
  if (now - first_ns.load() < 1'000'000'000) return;  // the first request, delivered again
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

const std::atomic<bool>& install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return stop_requested;
}

int stop_exit_code() { return 128 + (stop_signal.load() ? stop_signal.load() : SIGINT); }

}  // namespace hone::cli
