#include "guard_zones.hpp"

#include <atomic>
#include <cstring>
#include <mutex>

namespace hone::emu {

namespace {

// 0: free; 1: being written; 2: live. A slot is read by the handler only while live.
struct Slot {
  std::atomic<int> state{0};
  GuardedBuffer buffer;
};

constexpr int kSlots = 4096;
Slot slots[kSlots];
std::mutex writers;  // registration is rare; only readers must be lock-free

void copy_name(char (&dst)[64], const char* src) {
  std::strncpy(dst, src ? src : "", sizeof dst - 1);
  dst[sizeof dst - 1] = '\0';
}

}  // namespace

int register_guarded_buffer(const GuardedBuffer& buffer) {
  std::lock_guard lock(writers);
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].state.load(std::memory_order_relaxed) != 0) continue;
    slots[i].state.store(1, std::memory_order_relaxed);
    slots[i].buffer = buffer;
    slots[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;
}

void rename_guarded_buffer(int slot, const char* name) {
  if (slot < 0 || slot >= kSlots) return;
  std::lock_guard lock(writers);
  slots[slot].state.store(1, std::memory_order_relaxed);
  copy_name(slots[slot].buffer.name, name);
  slots[slot].state.store(2, std::memory_order_release);
}

void unregister_guarded_buffer(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  std::lock_guard lock(writers);
  slots[slot].state.store(0, std::memory_order_release);
}

bool find_guarded_buffer(std::uintptr_t address, GuardedBuffer& out) {
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].state.load(std::memory_order_acquire) != 2) continue;
    const GuardedBuffer& b = slots[i].buffer;
    if (address >= b.lo && address < b.hi) {
      out = b;
      return true;
    }
  }
  return false;
}

}  // namespace hone::emu
