#pragma once
// Running a shell command from a test: its exit code and everything it printed.
#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace hone::test {

struct CommandResult {
  int code = -1;       // exit status, -1 when it did not exit normally
  std::string output;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + command);
  CommandResult r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace hone::test
