// What an evaluation holds in this machine's memory (validator/memory_need.hpp): the host's draws,
// a large weight twice, the outputs four times, and on emu the device's buffers as well.
#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "validator/memory_need.hpp"

using namespace hone;

TEST_CASE("memory need: the host's buffers, the outputs' copies, and on emu the device's buffers too") {
  const OpSpec op = load_op(templates_root(), "gemv");  // out [M, N], x [M, K], w [N, K], bf16
  const Bindings small{{"M", 2}, {"N", 64}, {"K", 64}};
  const std::uint64_t out = 2 * 64 * 2, x = 2 * 64 * 2, w = 64 * 64 * 2;
  CHECK(evaluation_memory_bytes(op, small, "cuda") == x + w + 4 * out);
  CHECK(evaluation_memory_bytes(op, small, "emu") == x + w + 4 * out + (x + w + out));

  // A weight large enough to be shared between checks is held once more on the host.
  const Bindings large{{"M", 1}, {"N", 8192}, {"K", 8192}};
  const std::uint64_t big_w = 8192ull * 8192 * 2, big_x = 8192 * 2, big_out = 8192 * 2;
  CHECK(evaluation_memory_bytes(op, large, "cuda") == big_x + 2 * big_w + 4 * big_out);
}

TEST_CASE("memory need: a shortfall says what is needed and what is free, and unknown free memory is no shortfall") {
  CHECK(memory_shortfall(10'000'000'000, 20'000'000'000, "emu").empty());
  CHECK(memory_shortfall(30'000'000'000, 0, "emu").empty());
  CHECK(memory_shortfall(30'000'000'000, 20'000'000'000, "none").empty());  // nothing runs on device none
  const std::string why = memory_shortfall(25'800'000'000, 22'100'000'000, "emu");
  CHECK(why.find("25.8 GB") != std::string::npos);
  CHECK(why.find("22.1 GB is available") != std::string::npos);
  CHECK(why.find("on emu") != std::string::npos);
  CHECK(memory_shortfall(25'800'000'000, 22'100'000'000, "cuda").find("on emu") == std::string::npos);
  CHECK(memory_words(2.2e12) == "2.2 TB");
  CHECK(memory_words(512e6) == "512 MB");
}

TEST_CASE("memory need: this machine's available memory is read from the kernel") {
  const std::uint64_t available = available_memory_bytes();
  CHECK(available > 0);
  CHECK(available < (std::uint64_t{1} << 50));
}
