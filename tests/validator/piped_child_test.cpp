// The helper processes' start: arguments, descriptors and environment as hone passes them.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "validator/piped_child.hpp"

using namespace hone;

namespace {

// What the child wrote on its fd 4 until it closed it, then its exit status.
std::string replies_of(const PipedChild& child) {
  ::close(child.to_child);
  std::string out;
  char buf[256];
  for (ssize_t n; (n = ::read(child.from_child, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(child.from_child);
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  return out;
}

}  // namespace

TEST_CASE("piped child: runs in our environment, with the variables it is given set over it") {
  ::setenv("HONE_TEST_KEPT", "ours", 1);
  ::setenv("HONE_TEST_REPLACED", "ours", 1);
  const PipedChild child = spawn_piped_child(
      {"/bin/sh", "-c", R"(printf '%s|%s|%s' "$HONE_TEST_KEPT" "$HONE_TEST_REPLACED" "$HONE_TEST_ADDED" >&4)"},
      {"HONE_TEST_REPLACED=given", "HONE_TEST_ADDED=given too"});
  CHECK(replies_of(child) == "ours|given|given too");
  ::unsetenv("HONE_TEST_KEPT");
  ::unsetenv("HONE_TEST_REPLACED");
}
