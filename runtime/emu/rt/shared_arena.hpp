#pragma once
// A block's dynamic shared memory (extern __shared__): placed so that it ends where an
// inaccessible page begins, so a kernel running past dims.smem bytes faults instead of silently
// corrupting the heap. One arena per block scheduler, reused by every block it runs.
#include <cstddef>

namespace hone::emu {

class SharedArena {
 public:
  static constexpr std::size_t kAlign = 128;

  SharedArena() = default;
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;
  ~SharedArena();

  /// A kAlign-aligned buffer of `bytes` bytes (rounded up to kAlign), filled with 0xff bytes
  /// (NaN as floats) since device shared memory starts out as garbage. Throws std::bad_alloc.
  unsigned char* prepare(std::size_t bytes);
  /// Tells the fault handler that the buffer of the last prepare() is the running block's again
  /// (the blocks of a cluster take turns on one OS thread).
  void activate() const;

 private:
  unsigned char* map_ = nullptr;
  std::size_t map_bytes_ = 0;  // including the guard page at the end
  std::size_t bytes_ = 0;      // asked for by the last prepare()
};

}  // namespace hone::emu
