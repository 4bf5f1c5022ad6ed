// Cooperative groups as kernels of this field use them: the block, warp tiles of every size,
// their shuffles and votes, and cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// out[k * n + t] for the block's n threads: 0 rank in block, 1 block size, 2 rank in a tile of 8,
// 3 meta group rank of that tile, 4 tile sum by shfl_down, 5 tile-of-16 sum by cg::reduce,
// 6 tile-of-32 max by cg::reduce, 7 shfl from rank 3 of a tile of 4, 8 shfl_xor 1 in a tile of 2,
// 9 ballot of odd values in a tile of 8, 10 any/all of a tile of 16 (any + 2*all), 11 run-time
// tile of 4: its rank, 12 shfl_up by 1 in a tile of 8.
extern "C" __global__ void groups(int* out, const int* in) {
  cg::thread_block block = cg::this_thread_block();
  const int n = static_cast<int>(block.size());
  const int t = static_cast<int>(block.thread_rank());
  const int v = in[blockIdx.x * n + t];
  int* o = out + blockIdx.x * 13 * n;
  o[0 * n + t] = t;
  o[1 * n + t] = n;

  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
  o[2 * n + t] = static_cast<int>(tile8.thread_rank());
  o[3 * n + t] = static_cast<int>(tile8.meta_group_rank());
  int sum = v;
  for (int d = tile8.size() / 2; d > 0; d /= 2) sum += tile8.shfl_down(sum, d);
  o[4 * n + t] = tile8.thread_rank() == 0 ? sum : -1;

  cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
  o[5 * n + t] = cg::reduce(tile16, v, cg::plus<int>());
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  o[6 * n + t] = cg::reduce(warp, v, cg::greater<int>());
  cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(block);
  o[7 * n + t] = tile4.shfl(v, 3);
  cg::thread_block_tile<2> tile2 = cg::tiled_partition<2>(block);
  o[8 * n + t] = tile2.shfl_xor(v, 1);
  o[9 * n + t] = static_cast<int>(tile8.ballot(v % 2 != 0));
  o[10 * n + t] = tile16.any(v > 90) + 2 * tile16.all(v >= 0);
  block.sync();
  cg::thread_group dynamic4 = cg::tiled_partition(block, 4);
  o[11 * n + t] = static_cast<int>(dynamic4.thread_rank());
  o[12 * n + t] = tile8.shfl_up(v, 1);
  tile8.sync();
  cg::sync(block);
}
