#pragma once
// A helper process hone talks to over two pipes (the worker, the sandboxed compile process): it
// reads requests on fd 3 and writes replies on fd 4. Its stdin is /dev/null and its stdout goes to
// hone's stderr, so what kernels and compilers print never enters the protocol or hone's table.
// It runs in a process group of its own: a Ctrl-C at the terminal reaches hone, which lets the
// candidate in flight finish, and not the child; a timeout can kill the child with everything it
// started.
#include <sys/types.h>

#include <string>
#include <vector>

namespace hone {

struct PipedChild {
  pid_t pid = -1;
  int to_child = -1;    // our end of its fd 3
  int from_child = -1;  // our end of its fd 4
};

/// Writes all of `data` to `fd`, going on after interrupted and partial writes; false when the
/// other end is gone (errno says why). Both sides of the pipes use it.
bool write_all(int fd, const std::string& data);

/// Starts `args[0]` with `args`, in our environment with the "NAME=value" entries of `env` set
/// over it. Throws std::runtime_error "cannot start <program>: <reason>". Also makes SIGPIPE
/// harmless here: a child that dies while we write to it must not end hone.
PipedChild spawn_piped_child(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

}  // namespace hone
