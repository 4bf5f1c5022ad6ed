#pragma once
// Fiber stacks for emulated CUDA threads, kept for reuse: a launch of 1024-thread blocks needs
// 1024 stacks per OS thread, and mapping them anew for every block would dominate a launch.
#include <cstddef>
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

  /// A stack with an inaccessible guard page below it, so an overflow faults instead of
  /// silently corrupting the neighbouring fiber. Throws std::bad_alloc when mapping fails.
  boost::context::stack_context take();
  void give(boost::context::stack_context stack);

 private:
  std::vector<boost::context::stack_context> free_;
};

/// Boost.Context's StackAllocator concept over a pool; the pool must outlive the fiber.
struct PooledStack {
  StackPool* pool;
  boost::context::stack_context allocate() { return pool->take(); }
  void deallocate(boost::context::stack_context& stack) { pool->give(stack); }
};

}  // namespace hone::emu
