#pragma once
// Fiber stacks for emulated CUDA threads, kept for reuse: a launch of 1024-thread blocks needs
// 1024 stacks per OS thread, and mapping them anew for every block would dominate a launch.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hone::emu {

/// One fiber stack: it grows down from `top`; the mapping, guard region included, is the `size`
/// bytes below it.
struct FiberStack {
  void* top = nullptr;
  std::size_t size = 0;
};

class StackPool {
 public:
  /// Usable bytes per stack: $HONE_EMU_STACK_KB KiB when set, else 256 KiB (at least 64 KiB).
  static std::size_t stack_bytes();

  StackPool() = default;
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  ~StackPool();

  /// Bytes of the inaccessible guard region below every stack.
  static std::size_t guard_bytes();

  /// A stack with an inaccessible guard region below it, so an overflow faults instead of
  /// silently corrupting the neighbouring fiber (kernels are built with stack clash protection,
  /// so even a large frame touches the guard first). Throws std::bad_alloc when mapping fails.
  FiberStack take();
  void give(FiberStack stack);

 private:
  std::vector<FiberStack> free_;
};

/// The lowest address of a stack's guard region (the mapping's start).
inline std::uintptr_t guard_start(const FiberStack& stack) {
  return reinterpret_cast<std::uintptr_t>(stack.top) - stack.size;
}

}  // namespace hone::emu
