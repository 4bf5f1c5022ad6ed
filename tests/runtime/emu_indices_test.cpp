// Built-in index variables on a 3-D grid of 3-D blocks.
#include <doctest/doctest.h>

#include <vector>

#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

TEST_CASE("emu: threadIdx, blockIdx, blockDim and gridDim on a 3-D grid of 3-D blocks") {
  const EmuModule m = build("indices.cu", "record_indices", {"int*"});
  const int gx = 3, gy = 2, gz = 2, bx = 8, by = 4, bz = 2;
  const int threads = bx * by * bz, total = gx * gy * gz * threads;
  std::vector<int> out(static_cast<std::size_t>(13 * total), -1);
  int* o = out.data();
  auto a = args(o);
  m.launch(dims({gx, gy, gz}, {bx, by, bz}), a.data());
  for (int z = 0; z < gz; ++z)
    for (int y = 0; y < gy; ++y)
      for (int x = 0; x < gx; ++x)
        for (int tz = 0; tz < bz; ++tz)
          for (int ty = 0; ty < by; ++ty)
            for (int tx = 0; tx < bx; ++tx) {
              const int block = (z * gy + y) * gx + x, linear = (tz * by + ty) * bx + tx;
              const int* r = &out[static_cast<std::size_t>(13 * (block * threads + linear))];
              CAPTURE(block);
              CAPTURE(linear);
              CHECK(std::vector<int>(r, r + 13) ==
                    std::vector<int>{tx, ty, tz, x, y, z, bx, by, bz, gx, gy, gz, linear / 32 * 32});
            }
}
