#include "shared_arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "fault_handler.hpp"

namespace hone::emu {

namespace {
std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }
}  // namespace

SharedArena::~SharedArena() {
  if (map_) munmap(map_, map_bytes_);
}

unsigned char* SharedArena::prepare(std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t rounded = round_up(bytes ? bytes : 1, kAlign);
  if (!map_ || rounded > map_bytes_ - page) {
    if (map_) munmap(map_, map_bytes_);
    map_ = nullptr;
    const std::size_t total = round_up(rounded, page) + page;
    void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    map_ = static_cast<unsigned char*>(p);
    map_bytes_ = total;
    if (mprotect(map_ + total - page, page, PROT_NONE) != 0) throw std::bad_alloc();
  }
  unsigned char* buffer = map_ + map_bytes_ - page - rounded;
  std::memset(buffer, 0xff, rounded);
  bytes_ = bytes;
  activate();
  return buffer;
}

void SharedArena::activate() const {
  if (!map_) return;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t rounded = round_up(bytes_ ? bytes_ : 1, kAlign);
  const auto guard = reinterpret_cast<std::uintptr_t>(map_ + map_bytes_ - page);
  set_running_shared_memory(guard - rounded, bytes_, guard, guard + page);
}

}  // namespace hone::emu
