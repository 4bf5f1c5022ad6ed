#include "stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <string>

namespace hone::emu {

namespace {
std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}
}  // namespace

std::size_t StackPool::stack_bytes() {
  static const std::size_t bytes = [] {
    std::size_t kib = 256;
    if (const char* v = std::getenv("HONE_EMU_STACK_KB"); v && *v) kib = std::stoul(v);
    if (kib < 64) kib = 64;
    const std::size_t page = page_size();
    return (kib * 1024 + page - 1) / page * page;
  }();
  return bytes;
}

std::size_t StackPool::guard_bytes() { return page_size(); }

StackPool::~StackPool() {
  for (auto& s : free_) munmap(static_cast<char*>(s.top) - s.size, s.size);
}

FiberStack StackPool::take() {
  if (!free_.empty()) {
    auto s = free_.back();
    free_.pop_back();
    return s;
  }
  const std::size_t guard = guard_bytes();
  const std::size_t total = stack_bytes() + guard;
  // MAP_NORESERVE: only the pages a thread touches are committed.
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                    -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  if (mprotect(base, guard, PROT_NONE) != 0) {
    munmap(base, total);
    throw std::bad_alloc();
  }
  FiberStack s;
  s.size = total;
  s.top = static_cast<char*>(base) + total;
  return s;
}

void StackPool::give(FiberStack stack) { free_.push_back(stack); }

}  // namespace hone::emu
