// Large host buffers are recycled within a process, and always come back zeroed
// (core/host_blocks.hpp).
#include <cstring>

#include <doctest/doctest.h>

#include "core/host_blocks.hpp"
#include "core/host_tensor.hpp"

using namespace hone;

namespace {

bool all_zero(const unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

}  // namespace

TEST_CASE("host blocks: a large block given back is the next one of its size, zeroed again, and a small one is not kept") {
  const std::size_t big = kRecycledBlockBytes + 12345;
  const std::size_t kept_before = recycled_host_bytes();
  unsigned char* first = take_host_block(big);
  CHECK(all_zero(first, big));
  std::memset(first, 0xab, big);
  give_back_host_block(first, big);
  CHECK(recycled_host_bytes() > kept_before);

  unsigned char* again = take_host_block(big);
  CHECK(again == first);  // the same pages: no fresh mapping, no page faults
  CHECK(all_zero(again, big));
  CHECK(recycled_host_bytes() == kept_before);

  unsigned char* other = take_host_block(big);  // none left of that size: a fresh one
  CHECK(other != again);
  CHECK(all_zero(other, big));
  give_back_host_block(other, big);
  give_back_host_block(again, big);

  unsigned char* small = take_host_block(1000);
  CHECK(all_zero(small, 1000));
  const std::size_t kept = recycled_host_bytes();
  give_back_host_block(small, 1000);
  CHECK(recycled_host_bytes() == kept);
}

TEST_CASE("host blocks: a tensor drawn where a released one was reads zero where it is not written") {
  const std::size_t n = kRecycledBlockBytes / 4 + 7;
  const unsigned char* where = nullptr;
  {
    HostTensor a(DType::f32, n);
    for (std::size_t i = 0; i < n; i += 1000) a.set(i, 1.5);
    where = static_cast<const HostTensor&>(a).bytes.data();
  }
  HostTensor b(DType::f32, n);
  CHECK(static_cast<const HostTensor&>(b).bytes.data() == where);
  for (std::size_t i = 0; i < n; i += 1000) CHECK(b.at(i) == 0.0);
  // A copy taken for writing is a block of its own, with the bytes copied.
  b.set(3, 2.0);
  HostTensor c = b;
  c.set(4, 1.0);
  CHECK(c.at(3) == 2.0);
  CHECK(b.at(4) == 0.0);
}

TEST_CASE("host blocks: a whole draw into a reused block, not zeroed first, is the same draw whatever the block held") {
  const std::size_t n = kRecycledBlockBytes / 2 + 5;  // bf16: a recycled size
  const InputDist normal;
  Rng a(9);
  const HostTensor first = generate_tensor(DType::bf16, n, normal, a);
  const unsigned char* junk_block = nullptr;
  {
    HostTensor junk = HostTensor::uninitialized(DType::bf16, n);
    std::memset(junk.bytes.data(), 0xab, junk.size_bytes());
    junk_block = static_cast<const HostTensor&>(junk).bytes.data();
  }
  Rng b(9);
  const HostTensor second = generate_tensor(DType::bf16, n, normal, b);
  CHECK(second.bytes.data() == junk_block);  // drawn over the junk
  CHECK(first.bytes == second.bytes);
}
