#pragma once
// Fiber stacks for emulated CUDA threads, kept for reuse: a launch of 1024-thread blocks needs
// 1024 stacks per OS thread, and mapping them anew for every block would dominate a launch.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <boost/context/stack_context.hpp>

namespace hone::emu {

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
  boost::context::stack_context take();
  void give(boost::context::stack_context stack);

 private:
  std::vector<boost::context::stack_context> free_;
};

/// The lowest address of a stack's guard region (the mapping's start).
inline std::uintptr_t guard_start(const boost::context::stack_context& stack) {
  return reinterpret_cast<std::uintptr_t>(stack.sp) - stack.size;
}

/// Boost.Context's StackAllocator concept over a pool; the pool must outlive the fiber. The
/// start of the stack's guard region is stored in *guard, for the fault handler.
struct PooledStack {
  StackPool* pool;
  std::uintptr_t* guard;
  boost::context::stack_context allocate() {
    boost::context::stack_context s = pool->take();
    *guard = guard_start(s);
    return s;
  }
  void deallocate(boost::context::stack_context& stack) { pool->give(stack); }
};

}  // namespace hone::emu
