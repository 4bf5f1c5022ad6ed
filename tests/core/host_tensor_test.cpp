#include <doctest/doctest.h>

#include <cmath>

#include "core/host_tensor.hpp"

using namespace hone;

TEST_CASE("host tensor: a signalling NaN fill for every float dtype that has one, and none for the others") {
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    HostTensor x(t, 2);
    CHECK(fill_signalling_nan(x));
    CHECK(std::isnan(x.at(0)));
    CHECK(std::isnan(x.at(1)));
  }
  for (DType t : {DType::fp8, DType::i32, DType::i64}) {
    HostTensor x(t, 2);
    const auto bytes = x.bytes;
    CHECK_FALSE(fill_signalling_nan(x));
    CHECK(x.bytes == bytes);
  }
}
