// A tensor's bytes are shared by its copies until one of them is written (core/tensor_bytes.hpp).
#include <cstring>

#include <doctest/doctest.h>

#include "core/host_tensor.hpp"

using namespace hone;

TEST_CASE("tensor bytes: a copy shares the bytes until either side writes, and a write never reaches the other") {
  HostTensor a(DType::f32, 1000);
  for (std::size_t i = 0; i < a.count; ++i) a.set(i, static_cast<double>(i));
  const HostTensor b = a;
  CHECK(a.bytes.shares_with(b.bytes));
  CHECK(a.bytes == b.bytes);

  a.set(7, -1.0);  // the writer takes its own copy
  CHECK_FALSE(a.bytes.shares_with(b.bytes));
  CHECK(a.at(7) == -1.0);
  CHECK(b.at(7) == 7.0);
  CHECK(a.bytes != b.bytes);

  HostTensor c = b;
  std::memset(c.bytes.data(), 0, c.size_bytes());  // through the pointer, as a download writes
  CHECK(b.at(999) == 999.0);
  CHECK(c.at(999) == 0.0);

  // Reading a shared tensor takes no copy.
  const HostTensor d = b;
  CHECK(static_cast<const HostTensor&>(d).bytes.data() == b.bytes.data());
  CHECK(HostTensor{}.bytes.empty());
  CHECK(HostTensor{}.bytes == HostTensor{}.bytes);
}
