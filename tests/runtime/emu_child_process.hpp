#pragma once
// Running a launch that ends the process (a guard-page hit, a stack overflow) in a forked child,
// and reading what it reported: the fault line on the fatal fault descriptor, its stderr, how it
// ended.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/emu_device.hpp"
#include "runtime/fatal_fault.hpp"

namespace hone::emu_test {

struct ChildEnd {
  std::string fault;   // the reason reported through report_fatal_fault, "" if none
  std::string stderr_text;
  bool exited = false;
  int exit_code = -1;
  int signal = 0;
};

inline std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(n));
  return s;
}

/// Runs body() in a child process; with `fatal_reports`, emu faults are reported as the worker
/// reports them (report_emu_faults_fatally), else they go to stderr.
inline ChildEnd run_in_child(const std::function<void()>& body, bool fatal_reports = true) {
  int faults[2], err[2];
  if (pipe(faults) != 0 || pipe(err) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(faults[0]);
    close(err[0]);
    dup2(err[1], 2);
    std::signal(SIGSEGV, SIG_DFL);  // not the test framework's crash report: this crash is expected
    if (fatal_reports) {
      set_fatal_fault_fd(faults[1]);
      report_emu_faults_fatally();
    }
    try {
      body();
    } catch (const std::exception& e) {
      const std::string what = std::string("exception: ") + e.what() + "\n";
      [[maybe_unused]] ssize_t ignored = write(2, what.data(), what.size());
    }
    _exit(0);
  }
  close(faults[1]);
  close(err[1]);
  ChildEnd end;
  const std::string line = read_all(faults[0]);
  end.stderr_text = read_all(err[0]);
  close(faults[0]);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  end.exited = WIFEXITED(status);
  end.exit_code = end.exited ? WEXITSTATUS(status) : -1;
  end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (!line.empty()) end.fault = nlohmann::json::parse(line.substr(0, line.find('\n'))).value("reason", "");
  return end;
}

}  // namespace hone::emu_test
