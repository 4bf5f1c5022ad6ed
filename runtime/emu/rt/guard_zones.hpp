#pragma once
// Where every kernel buffer lies between its inaccessible guard regions, so that the fault
// handler can turn the address of a guard-page hit into "out-of-bounds write to buffer 'out' at
// byte offset N". The registry is a fixed table that a signal handler can read without locks;
// buffers are registered and released by the host thread while no kernel runs.
#include <cstddef>
#include <cstdint>

namespace hone::emu {

/// A kernel buffer: [start, start + bytes) is what the kernel may touch; [lo, hi) is the whole
/// mapping, guards included.
struct GuardedBuffer {
  std::uintptr_t lo = 0, hi = 0;
  std::uintptr_t start = 0;
  std::size_t bytes = 0;
  char name[64] = {};
};

/// Registers a buffer; returns its slot, or -1 when the table is full (the buffer then still
/// works, but a fault in its guards is reported without its name).
int register_guarded_buffer(const GuardedBuffer& buffer);
void rename_guarded_buffer(int slot, const char* name);
void unregister_guarded_buffer(int slot);

/// The registered buffer whose mapping contains `address`. Async-signal-safe.
bool find_guarded_buffer(std::uintptr_t address, GuardedBuffer& out);

}  // namespace hone::emu
