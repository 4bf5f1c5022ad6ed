#include "runtime/fatal_fault.hpp"

#include <unistd.h>

#include <atomic>

namespace hone {

namespace {
std::atomic<int> fault_fd{-1};

// Only write(2) and plain loops: this runs inside signal handlers.
void append(char* buf, unsigned& len, unsigned cap, const char* s, bool escape) {
  for (; *s && len + 7 < cap; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
    if (escape && (c == '"' || c == '\\')) {
      buf[len++] = '\\';
      buf[len++] = static_cast<char>(c);
    } else if (escape && c < 0x20) {
      buf[len++] = ' ';
    } else {
      buf[len++] = static_cast<char>(c);
    }
  }
}
}  // namespace

void set_fatal_fault_fd(int fd) { fault_fd.store(fd); }

void report_fatal_fault(const char* reason) {
  const int fd = fault_fd.load();
  if (fd >= 0) {
    char buf[2048];
    unsigned len = 0;
    append(buf, len, sizeof buf, "{\"type\":\"fault\",\"reason\":\"", false);
    append(buf, len, sizeof buf, reason, true);
    append(buf, len, sizeof buf, "\"}\n", false);
    unsigned done = 0;
    while (done < len) {
      const ssize_t n = ::write(fd, buf + done, len - done);
      if (n <= 0) break;
      done += static_cast<unsigned>(n);
    }
  }
  ::_exit(kFatalFaultExit);
}

}  // namespace hone
