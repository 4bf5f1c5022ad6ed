// Thread-block clusters on emu (runtime/emu/rt/cluster_runner.cpp): the blocks of a cluster meet
// at cluster.sync() and read each other's static and dynamic shared memory; a read that no
// cluster.sync() orders, a block that leaves while another still reads its shared memory, and a
// cluster.sync() one block never reaches are each caught; launches that CUDA refuses are refused.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "emu_test_support.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "runtime/ptx_cluster.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

// Built as a kernel image is: NVRTC for sm_90 first, whose PTX gives the cluster dims emu runs.
EmuModule build_clustered(const std::string& entry, const std::vector<std::string>& types) {
  const NvrtcResult r = nvrtc_compile({read_kernel("clusters.cu"), entry + ".cu", "sm_90", {}});
  INFO(r.log);
  REQUIRE(r.ok);
  const EmuBuild b = compile_for_emu({read_kernel("clusters.cu"), entry, types, 900});
  INFO(b.log);
  REQUIRE(b.ok);
  return EmuModule::load(b.shared_object, b.invoke_symbol, ptx_cluster_dims(r.ptx, entry));
}

const std::vector<std::string> kTypes = {"float*", "unsigned*", "const float*", "int"};
constexpr int kBlocks = 8;  // two clusters of four

struct Run {
  std::vector<float> out = std::vector<float>(kBlocks, -1.f);
  std::vector<unsigned> info = std::vector<unsigned>(kBlocks, 0);
  std::string fault;
};

std::vector<float> inputs() {
  std::vector<float> in(kBlocks * 64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 64) + static_cast<float>(i / 64) * 1000.f;
  return in;
}

Run launch(const EmuModule& m, int skip, std::uint64_t seed, std::int64_t smem = 0, std::int64_t blocks = kBlocks) {
  Run r;
  std::vector<float> in = inputs();
  float* o = r.out.data();
  unsigned* i = r.info.data();
  const float* x = in.data();
  auto a = args(o, i, x, skip);
  r.fault = fault_of(m, dims({blocks, 1, 1}, {32, 1, 1}, smem), a.data(), seed);
  return r;
}

float cluster_total(int cluster) {
  const std::vector<float> in = inputs();
  float s = 0.f;
  for (int b = cluster * 4; b < cluster * 4 + 4; ++b) {
    float block = 0.f;
    for (int i = 0; i < 64; ++i) block += in[static_cast<std::size_t>(b * 64 + i)];
    s += block;
  }
  return s;
}

}  // namespace

TEST_CASE("emu clusters: blocks read each other's shared memory after cluster.sync(), static and dynamic, in any order") {
  const EmuModule stat = build_clustered("cluster_sum_static", kTypes);
  const EmuModule dyn = build_clustered("cluster_sum_dynamic", kTypes);
  for (std::uint64_t seed : {0ull, 1ull, 2ull, 3ull, 99ull}) {
    INFO("seed " << seed);
    for (const Run& r : {launch(stat, 0, seed), launch(dyn, 0, seed, 4)}) {
      CHECK(r.fault.empty());
      CHECK(r.out[0] == cluster_total(0));
      CHECK(r.out[1] == cluster_total(1));
      for (unsigned b = 0; b < kBlocks; ++b) CHECK(r.info[b] == (b % 4) * 100 + 44);  // rank, 4 blocks, dim x 4
    }
  }
}

TEST_CASE("emu clusters: a kernel without __cluster_dims__ is a cluster of one block") {
  const EmuModule m = build_clustered("no_cluster_sum", kTypes);
  const Run r = launch(m, 0, 0, 0, 1);
  CHECK(r.fault.empty());
  CHECK(r.info[0] == 11);
}

TEST_CASE("emu clusters: a read of a peer's shared memory that no cluster.sync() orders meets poison") {
  const EmuModule m = build_clustered("cluster_sum_static", kTypes);
  // Rank 0 goes first without a seed: its peers have written nothing yet.
  CHECK(std::isnan(launch(m, 1, 0).out[0]));
  // Without the cluster.sync() after the reads, a peer whose turn comes first exits and takes its
  // shared memory with it: some seeds order it so.
  bool poisoned = false;
  for (std::uint64_t seed = 1; seed <= 16 && !poisoned; ++seed) poisoned = std::isnan(launch(m, 2, seed).out[0]);
  CHECK(poisoned);
}

TEST_CASE("emu clusters: a block that leaves before a cluster.sync() the others wait at is cluster barrier divergence") {
  const EmuModule m = build_clustered("cluster_sum_static", kTypes);
  const Run r = launch(m, 3, 0);
  INFO(r.fault);
  CHECK(has(r.fault, "cluster barrier divergence"));
  CHECK(has(r.fault, "block (1,0,0) of its cluster has exited"));
}

TEST_CASE("emu clusters: a grid that is not whole clusters, and an address outside shared memory, are refused") {
  const EmuModule m = build_clustered("cluster_sum_static", kTypes);
  CHECK(has(launch(m, 0, 0, 0, 6).fault, "is not a whole number of clusters (4,1,1)"));
  const EmuModule g = build_clustered("map_global", kTypes);
  const Run r = launch(g, 0, 0, 0, 2);
  INFO(r.fault);
  CHECK(has(r.fault, "cluster.map_shared_rank: the address is not in the shared memory of block"));
}
