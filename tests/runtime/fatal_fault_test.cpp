#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "runtime/fatal_fault.hpp"

TEST_CASE("fatal fault: the reason leaves as one JSON line and the process exits with its code") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    hone::set_fatal_fault_fd(fds[1]);
    hone::report_fatal_fault("out-of-bounds write to \"out\"\nat offset 4096");
  }
  close(fds[1]);
  std::string line;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) line.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == hone::kFatalFaultExit);
  REQUIRE(!line.empty());
  CHECK(line.back() == '\n');
  auto j = nlohmann::json::parse(line);
  CHECK(j["type"] == "fault");
  CHECK(j["reason"] == "out-of-bounds write to \"out\" at offset 4096");
}
