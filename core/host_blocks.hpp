#pragma once
// Large host buffers, recycled within a process. A check at a model's shape draws its inputs
// afresh (an attention task's KV pool at batch 16 and 256 pages is two buffers of 126 MB), and a fresh
// mapping of that size costs a page fault and the kernel's zeroing per page: on emu, where the
// launches themselves are CPU work, that was 6-8% of an attention task. A buffer of a size seen
// before reuses the pages of the last one released, zeroed again in user space unless its caller
// writes every byte.
//
// Released blocks are kept up to a share of the machine's memory (and of the process's address
// space limit, when the sandbox sets one), and handed back to the kernel as reclaimable
// (MADV_FREE): under memory pressure their pages go, and come back zero, as a fresh mapping's do.
#include <cstddef>

namespace hone {

/// Blocks of at least this many bytes are recycled; smaller ones are the allocator's.
inline constexpr std::size_t kRecycledBlockBytes = std::size_t{32} << 20;

/// `bytes` of host memory, zeroed unless `zeroed` is false (for a caller that writes every byte:
/// on a machine that moves 1 GB/s, zeroing a reused KV pool costs what its fresh pages did);
/// throws std::bad_alloc when there is none.
unsigned char* take_host_block(std::size_t bytes, bool zeroed = true);

/// Gives back a block from take_host_block of that size.
void give_back_host_block(unsigned char* block, std::size_t bytes);

/// Bytes held for reuse now (for tests).
std::size_t recycled_host_bytes();

}  // namespace hone
