#pragma once
// An environment variable set (or, with nullptr, removed) for one scope, and put back as it was
// after it. Processes started in the scope inherit it.
#include <cstdlib>
#include <optional>
#include <string>

namespace hone::test {

struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;

  ScopedEnv(const std::string& n, const char* value) : name(n) {
    if (const char* o = std::getenv(n.c_str())) old = o;
    if (value) ::setenv(n.c_str(), value, 1);
    else ::unsetenv(n.c_str());
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace hone::test
