// The worker's memory limit leaves room for the op's buffers: a pool of 64 DeltaNet states (134 MB)
// under the old fixed 2 GiB failed every gdn_gated_decode candidate at Qwen3-Next's shape with
// bad_alloc, as an MoE layer's 2 GB of expert weights would.
#include <doctest/doctest.h>

#include <cstdlib>

#include "validator/evaluation_request.hpp"
#include "validator/sandbox.hpp"

using namespace hone;

namespace {
const std::filesystem::path kFamilies = std::filesystem::path(HONE_TEST_DATA_DIR) / "families";
}

TEST_CASE("worker memory: the buffers of the largest shape a request evaluates, each dynamic dim at its bucket's top") {
  const OpSpec op = load_op_spec(kFamilies / "slot_update");  // out, state [2B+3, D], x, state_idx
  EvaluationRequest r;
  r.shape = {{"B", 6}, {"D", 16}};
  CHECK(request_buffer_bytes(op, r) == 4 * (6 * 16 + 15 * 16 + 6 * 16 + 6));
  r.buckets["B"] = {5, 8};
  CHECK(request_buffer_bytes(op, r) == 4 * (8 * 16 + 19 * 16 + 8 * 16 + 8));
}

TEST_CASE("worker memory: the limit grows by eight times the buffers") {
  ::unsetenv("HONE_WORKER_MEMORY_MB");
  const std::uint64_t gib = 1ull << 30;
  const auto without = default_sandbox_limits(2, 0, 0).memory_bytes;
  const auto with = default_sandbox_limits(2, 0, 3 * gib).memory_bytes;
  CHECK(with - without >= 24 * gib);
  CHECK(with - without < 24 * gib + 64 * 1024 * 1024);  // what the process maps between the two calls
}
