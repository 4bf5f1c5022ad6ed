#pragma once
// The cuda worker's loop: evaluations run in the worker process itself, on one device (one CUDA
// context) that stays open between them.
//
// Why not a child per evaluation, as on emu: a CUDA context does not survive fork, and creating
// one per candidate costs a few hundred milliseconds and the GPU memory of a context. A kernel
// runs on the GPU, not on this CPU, so the seccomp sandbox has nothing to hold: a GPU kernel
// cannot make system calls or touch host memory it was not given, and untrusted source is held to
// the allow-list (no host interfaces, no dynamic parallelism) before it compiles. What a bad kernel can do is fault the
// context (an illegal address) or hang: a fault marks the device lost, the verdict says so, and
// the worker exits after it (the client waits for it and starts a new one); a hang is ended by
// the client's timeout, which kills the worker and its context with it.
#include <cstdio>

#include "runtime/device.hpp"

namespace hone {

/// Reads requests (JSON lines) from `requests` until it closes and writes stage notices and
/// verdicts to `reply_fd`. Returns the process's exit status: 0 when the requests ended, 3 when
/// the device was lost (the last verdict carries "exiting": true).
int serve_evaluations_in_process(Device& device, std::FILE* requests, int reply_fd);

}  // namespace hone
