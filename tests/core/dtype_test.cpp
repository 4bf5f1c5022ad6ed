#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "core/dtype.hpp"
#include "core/input_error.hpp"

using namespace hone;

TEST_CASE("bf16 rounds to nearest even") {
  CHECK(float_to_bf16(1.0f) == 0x3f80);
  CHECK(bf16_to_float(0x3f80) == 1.0f);
  // 1 + 2^-8 is exactly half way between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
  CHECK(float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);
  // 1 + 3*2^-8 is half way between 1+2^-7 (odd) and 1+2^-6 (even): rounds up to even.
  CHECK(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);
  CHECK(float_to_bf16(-2.0f) == 0xc000);
  CHECK(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isinf(bf16_to_float(float_to_bf16(std::numeric_limits<float>::infinity()))));
}

TEST_CASE("f16 conversions are exact where representable and round to nearest even") {
  CHECK(float_to_f16(1.0f) == 0x3c00);
  CHECK(f16_to_float(0x3c00) == 1.0f);
  CHECK(float_to_f16(65504.0f) == 0x7bff);
  CHECK(float_to_f16(70000.0f) == 0x7c00);
  CHECK(f16_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(float_to_f16(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(float_to_f16(-0.5f) == 0xb800);
  // 1 + 2^-11 is half way between 1 and 1 + 2^-10: ties to even (1.0).
  CHECK(float_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
  for (std::uint32_t h = 0; h < 0x7c00; h += 7) CHECK(float_to_f16(f16_to_float(static_cast<std::uint16_t>(h))) == h);
}

TEST_CASE("dtype names and sizes") {
  CHECK(parse_dtype("bf16") == DType::bf16);
  CHECK(dtype_size(DType::bf16) == 2);
  CHECK(dtype_cuda_type(DType::bf16) == "__nv_bfloat16");
  CHECK_THROWS_AS(parse_dtype("fp8"), InputError);
  unsigned char buf[8];
  store_element(buf, DType::bf16, 1, 3.0);
  CHECK(load_element(buf, DType::bf16, 1) == 3.0);
}
