#include "core/host_blocks.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <utility>

namespace hone {

namespace {

// Mappings are whole huge pages, so that near sizes share blocks and the kernel can back them
// with huge pages.
constexpr std::size_t kMapUnit = std::size_t{2} << 20;

std::size_t mapped_bytes(std::size_t bytes) { return (bytes + kMapUnit - 1) / kMapUnit * kMapUnit; }

struct Recycled {
  std::mutex mutex;
  std::deque<std::pair<std::size_t, unsigned char*>> blocks;  // (mapped bytes, block), oldest first
  std::size_t bytes = 0;
};

// Never destroyed: a tensor released by another static's destructor still finds it.
Recycled& recycled() {
  static auto* r = new Recycled;
  return *r;
}

// An eighth of the machine's memory, and of the address space the process may have: what a
// sandboxed worker keeps must not be what its next allocation lacks.
std::size_t keep_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  std::size_t limit = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8
                                            : std::size_t{1} << 30;
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) limit = std::min<std::size_t>(limit, r.rlim_cur / 8);
  return limit;
}

void drop_recycled() {
  Recycled& r = recycled();
  std::lock_guard lock(r.mutex);
  for (const auto& [bytes, block] : r.blocks) munmap(block, bytes);
  r.blocks.clear();
  r.bytes = 0;
}

unsigned char* reuse(std::size_t mapped) {
  Recycled& r = recycled();
  std::lock_guard lock(r.mutex);
  for (auto it = r.blocks.rbegin(); it != r.blocks.rend(); ++it) {
    if (it->first != mapped) continue;
    unsigned char* block = it->second;
    r.blocks.erase(std::next(it).base());
    r.bytes -= mapped;
    return block;
  }
  return nullptr;
}

}  // namespace

unsigned char* take_host_block(std::size_t bytes, bool zeroed) {
  if (bytes < kRecycledBlockBytes) {
    void* p = zeroed ? std::calloc(std::max<std::size_t>(bytes, 1), 1) : std::malloc(std::max<std::size_t>(bytes, 1));
    if (!p) throw std::bad_alloc();
    return static_cast<unsigned char*>(p);
  }
  const std::size_t mapped = mapped_bytes(bytes);
  if (unsigned char* block = reuse(mapped)) {
    if (zeroed) std::memset(block, 0, bytes);
    return block;
  }
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    drop_recycled();  // out of memory or address space: what is kept goes first
    p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<unsigned char*>(p);  // a fresh mapping reads as zero
}

void give_back_host_block(unsigned char* block, std::size_t bytes) {
  if (!block) return;
  if (bytes < kRecycledBlockBytes) {
    std::free(block);
    return;
  }
  const std::size_t mapped = mapped_bytes(bytes), limit = keep_limit();
  if (mapped > limit || madvise(block, mapped, MADV_FREE) != 0) {
    munmap(block, mapped);
    return;
  }
  std::deque<std::pair<std::size_t, unsigned char*>> evicted;
  {
    Recycled& r = recycled();
    std::lock_guard lock(r.mutex);
    r.blocks.emplace_back(mapped, block);
    r.bytes += mapped;
    while (r.bytes > limit) {
      evicted.push_back(r.blocks.front());
      r.bytes -= r.blocks.front().first;
      r.blocks.pop_front();
    }
  }
  for (const auto& [size, old] : evicted) munmap(old, size);
}

std::size_t recycled_host_bytes() {
  Recycled& r = recycled();
  std::lock_guard lock(r.mutex);
  return r.bytes;
}

}  // namespace hone
