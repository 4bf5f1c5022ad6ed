#include "validator/piped_child.hpp"

#include <fcntl.h>
#include <spawn.h>

#include <algorithm>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace hone {

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

PipedChild spawn_piped_child(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  ::signal(SIGPIPE, SIG_IGN);
  const std::string& program = args.at(0);
  auto fail = [&](const std::string& why) { return std::runtime_error("cannot start " + program + ": " + why); };
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0) throw fail(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(from, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(to[0]);
    ::close(to[1]);
    throw fail(std::string("pipe: ") + std::strerror(e));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, to[0], 3);
  posix_spawn_file_actions_adddup2(&fa, from[1], 4);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> owned = args;
  std::vector<char*> argv;
  for (auto& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Ours, with `env`'s variables in place of any of the same name.
  std::vector<std::string> variables = env;
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    const std::string name = v.substr(0, v.find('=') + 1);
    if (std::none_of(env.begin(), env.end(), [&](const std::string& x) { return x.rfind(name, 0) == 0; })) variables.push_back(v);
  }
  std::vector<char*> envp;
  for (auto& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);
  PipedChild child;
  const int rc = posix_spawn(&child.pid, program.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(to[0]);
  ::close(from[1]);
  if (rc != 0) {
    ::close(to[1]);
    ::close(from[0]);
    throw fail(std::strerror(rc));
  }
  child.to_child = to[1];
  child.from_child = from[0];
  return child;
}

}  // namespace hone
