#pragma once
// How a running command is asked to stop: SIGINT (Ctrl-C; `timeout -s INT`) and SIGTERM (what
// Slurm and Kubernetes send before they kill). The first signal sets the flag: the command
// finishes the candidate in flight, stores it and stops. The same signal arriving again within a
// second is the same request delivered twice (`timeout` signals hone and then its process group);
// a later one ends hone at once.
#include <atomic>

namespace hone::cli {

/// Installs the handlers; returns the flag they set.
const std::atomic<bool>& install_stop_signals();

/// 128 + the signal that asked to stop (130 for SIGINT, 143 for SIGTERM), as shells report it.
int stop_exit_code();

}  // namespace hone::cli
