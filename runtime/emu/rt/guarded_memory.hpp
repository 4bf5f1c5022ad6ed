#pragma once
// Kernel buffers of the emu device, each in its own mapping between inaccessible guard regions:
//
//   [guard 64 KiB][head slack][buffer, 256-byte aligned][tail gap][guard 64 KiB]
//
// The buffer ends at the upper guard where cudaMalloc's 256-byte alignment allows: then the
// first byte past its end faults. The head slack (the rest of the first page) and the tail gap
// (< 256 bytes, when the size is not a multiple of 256) are canary zones, filled with 0xff (NaN
// to a kernel that reads them) and checked after each launch. A hit on a guard region is turned
// into a reason by the fault handler, through the guard zone registry.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace hone::emu {

class GuardedMemory {
 public:
  static constexpr std::size_t kAlign = 256;
  static constexpr std::size_t kGuardBytes = 64 * 1024;
  static constexpr unsigned char kCanary = 0xff;

  GuardedMemory() = default;
  GuardedMemory(const GuardedMemory&) = delete;
  GuardedMemory& operator=(const GuardedMemory&) = delete;
  ~GuardedMemory();

  /// A kAlign-aligned buffer of `bytes` bytes; throws std::bad_alloc.
  void* allocate(std::size_t bytes);
  void release(void* buffer);
  /// Names the buffer in fault reasons (the kernel argument it holds).
  void name(void* buffer, const std::string& name);

  /// "" when every canary zone is intact, else the first overwrite found, as a reason:
  /// "out-of-bounds write to buffer 'out' (...) at byte offset N, k bytes past its end". The
  /// zones are restored, so that the next launch is judged on its own.
  std::string check_canaries();

 private:
  struct Mapping {
    unsigned char* base = nullptr;  // the whole mapping, guards included
    std::size_t map_bytes = 0;
    std::size_t bytes = 0;          // the buffer's size
    std::size_t slack = 0;          // canary bytes before the buffer
    std::size_t gap = 0;            // canary bytes after it
    int slot = -1;                  // in the guard zone registry
    std::string name;
  };
  // Released mappings, kept for the next allocation of the same size: a validation allocates the
  // same buffers launch after launch, and a fresh mapping costs a page fault per page on first
  // touch (a DeltaNet state pool of 134 MB: 33 thousand faults a launch). They hold address space:
  // at most an eighth of the process's limit on it (1 GiB without one).
  static std::size_t spare_limit();
  unsigned char* take_spare(std::size_t map_bytes);
  void drop_spares();

  mutable std::mutex mutex_;
  std::map<void*, Mapping> mappings_;
  std::multimap<std::size_t, unsigned char*> spares_;  // map bytes -> mapping
  std::size_t spare_bytes_ = 0;
};

}  // namespace hone::emu
