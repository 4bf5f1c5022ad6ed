#pragma once
// The emu device's <cooperative_groups.h>: the groups kernels of this field use, built on the
// block barrier and the warp intrinsics: this_thread_block(), tiled_partition<N>() (N a power of
// two up to 32) and its run-time form, coalesced_threads(), and this_cluster(). Grid groups are not offered: a
// grid-wide barrier needs a cooperative launch, and the emu device runs blocks a few at a time.
#include "hone_emu/prelude.h"

namespace cooperative_groups {

namespace details {

inline unsigned int block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned int linear_rank() { return ::hone_emu_self->linear; }

// The lanes of the caller's warp that form its tile of `size` lanes, and where that tile starts.
inline unsigned int tile_base(unsigned int size) { return ::hone_emu::lane_id() / size * size; }
inline unsigned int tile_mask(unsigned int size) {
  return size >= 32 ? 0xffffffffu : ((1u << size) - 1u) << tile_base(size);
}

// The operations every warp-sized group offers, for a group of `size` lanes aligned within the warp.
class warp_tile_ops {
 public:
  explicit warp_tile_ops(unsigned int size) : size_(size) {}
  void sync() const { __syncwarp(tile_mask(size_)); }
  unsigned int thread_rank() const { return ::hone_emu::lane_id() % size_; }
  unsigned int size() const { return size_; }
  unsigned int num_threads() const { return size_; }
  unsigned int meta_group_rank() const { return linear_rank() / size_; }
  unsigned int meta_group_size() const { return (block_threads() + size_ - 1) / size_; }

  template <class T> T shfl(T var, int src_rank) const {
    return ::hone_emu::shfl_idx(tile_mask(size_), var, src_rank, static_cast<int>(size_));
  }
  template <class T> T shfl_down(T var, unsigned int delta) const {
    return ::hone_emu::shfl_down(tile_mask(size_), var, delta, static_cast<int>(size_));
  }
  template <class T> T shfl_up(T var, unsigned int delta) const {
    return ::hone_emu::shfl_up(tile_mask(size_), var, delta, static_cast<int>(size_));
  }
  template <class T> T shfl_xor(T var, unsigned int lane_mask) const {
    return ::hone_emu::shfl_xor(tile_mask(size_), var, static_cast<int>(lane_mask), static_cast<int>(size_));
  }
  int any(int predicate) const { return __any_sync(tile_mask(size_), predicate); }
  int all(int predicate) const { return __all_sync(tile_mask(size_), predicate); }
  // Bit i is the tile's rank i, as on the device.
  unsigned int ballot(int predicate) const { return __ballot_sync(tile_mask(size_), predicate) >> tile_base(size_); }
  template <class T> unsigned int match_any(T value) const {
    return ::hone_emu::match_any(tile_mask(size_), value) >> tile_base(size_);
  }
  template <class T> unsigned int match_all(T value, int& pred) const {
    return ::hone_emu::match_all(tile_mask(size_), value, &pred) >> tile_base(size_);
  }

 private:
  unsigned int size_;
};

}  // namespace details

class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned int thread_rank() const { return details::linear_rank(); }
  unsigned int size() const { return details::block_threads(); }
  unsigned int num_threads() const { return details::block_threads(); }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

/// A tile of Size lanes. The parent type is kept as CUDA keeps it; tiles with the same size
/// convert into each other (thread_block_tile<32> t = tiled_partition<32>(block)).
template <unsigned int Size, class ParentT = void>
class thread_block_tile : public details::warp_tile_ops {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "the emu device offers thread_block_tile sizes that are powers of two up to 32");

 public:
  thread_block_tile() : details::warp_tile_ops(Size) {}
  template <class OtherParent>
  thread_block_tile(const thread_block_tile<Size, OtherParent>&) : details::warp_tile_ops(Size) {}
  static constexpr unsigned int size() { return Size; }
  static constexpr unsigned int num_threads() { return Size; }
};

template <unsigned int Size, class ParentT>
inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT&) {
  return thread_block_tile<Size, ParentT>();
}

/// The run-time form: tiled_partition(block, 16).
class thread_group : public details::warp_tile_ops {
 public:
  explicit thread_group(unsigned int size) : details::warp_tile_ops(size) {}
};

inline thread_group tiled_partition(const thread_block&, unsigned int tile_size) {
  if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0)
    hone_emu_fault("tiled_partition: the emu device offers tile sizes that are powers of two up to 32");
  return thread_group(tile_size);
}
template <unsigned int Size, class P>
inline thread_group tiled_partition(const thread_block_tile<Size, P>&, unsigned int tile_size) {
  if (tile_size == 0 || tile_size > Size || (tile_size & (tile_size - 1)) != 0)
    hone_emu_fault("tiled_partition: a tile splits into powers of two no larger than itself");
  return thread_group(tile_size);
}

/// The lanes of the warp that arrive here together (see __activemask).
class coalesced_group {
 public:
  coalesced_group() : mask_(__activemask()) {}
  void sync() const { __syncwarp(mask_); }
  unsigned int size() const { return static_cast<unsigned int>(__popc(mask_)); }
  unsigned int num_threads() const { return size(); }
  unsigned int thread_rank() const { return static_cast<unsigned int>(__popc(mask_ & ((1u << ::hone_emu::lane_id()) - 1u))); }
  template <class T> T shfl(T var, unsigned int src_rank) const {
    return ::hone_emu::shuffle("__shfl_sync", mask_, var, lane_of_rank(src_rank));
  }
  int any(int predicate) const { return __any_sync(mask_, predicate); }
  int all(int predicate) const { return __all_sync(mask_, predicate); }
  unsigned int ballot(int predicate) const {  // bit i is rank i
    const unsigned int lanes = __ballot_sync(mask_, predicate);
    unsigned int out = 0, rank = 0;
    for (unsigned int m = mask_; m; m &= m - 1, ++rank)
      if (lanes & (m & (~m + 1u))) out |= 1u << rank;
    return out;
  }

 private:
  int lane_of_rank(unsigned int rank) const {
    unsigned int m = mask_;
    for (unsigned int r = 0; m; m &= m - 1, ++r)
      if (r == rank) return __ffs(static_cast<int>(m)) - 1;
    return -1;
  }
  unsigned int mask_;
};

inline coalesced_group coalesced_threads() { return coalesced_group(); }

template <class Group>
inline void sync(const Group& g) { g.sync(); }

/// The thread-block cluster of the caller's block (sm_90, the kernel's __cluster_dims__): a launch
/// without clusters is a cluster of one block, as on the device. Its blocks take turns on emu (see
/// the runtime's cluster_runner.hpp); map_shared_rank reaches a peer's shared memory.
class cluster_group {
 public:
  void sync() const { hone_emu_cluster_sync(); }
  dim3 dim_blocks() const { return ::hone_emu_self->cluster_dim; }
  unsigned int num_blocks() const { return dim_blocks().x * dim_blocks().y * dim_blocks().z; }
  dim3 block_index() const {
    const dim3 d = dim_blocks();
    return dim3(blockIdx.x % d.x, blockIdx.y % d.y, blockIdx.z % d.z);
  }
  unsigned int block_rank() const {
    const dim3 d = dim_blocks(), i = block_index();
    return i.x + d.x * (i.y + d.y * i.z);
  }
  unsigned int thread_rank() const { return block_rank() * details::block_threads() + details::linear_rank(); }
  unsigned int num_threads() const { return num_blocks() * details::block_threads(); }
  unsigned int size() const { return num_threads(); }
  dim3 dim_threads() const { return blockDim; }
  template <class T> T* map_shared_rank(T* address, unsigned int rank) const {
    return static_cast<T*>(hone_emu_map_shared_rank(address, rank));
  }
  template <class T> T& map_shared_rank(T& value, unsigned int rank) const {
    return *static_cast<T*>(hone_emu_map_shared_rank(&value, rank));
  }
};

inline cluster_group this_cluster() { return cluster_group(); }

class grid_group {};
template <class Unused = void>
inline grid_group this_grid() {
  static_assert(sizeof(Unused) == 0,
                "this_grid() needs a cooperative launch; the emu device runs blocks a few at a time and offers none");
}

}  // namespace cooperative_groups
