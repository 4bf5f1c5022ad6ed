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
  CHECK_THROWS_AS(parse_dtype("fp4"), InputError);
  unsigned char buf[8];
  store_element(buf, DType::bf16, 1, 3.0);
  CHECK(load_element(buf, DType::bf16, 1) == 3.0);
}

TEST_CASE("fp8 e4m3: every finite code round-trips, the NaNs stay NaN") {
  for (unsigned c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    const float v = e4m3_to_float(code);
    if ((c & 0x7f) == 0x7f) {
      CHECK(std::isnan(v));
      CHECK(float_to_e4m3(v) == 0x7f);
      continue;
    }
    CHECK(float_to_e4m3(v) == code);
    CHECK(std::signbit(v) == ((c & 0x80) != 0));  // 0x80 is -0
  }
  CHECK(dtype_size(DType::fp8) == 1);
  CHECK(parse_dtype("fp8") == DType::fp8);
  CHECK(dtype_name(DType::fp8) == "fp8");
  CHECK(dtype_cuda_type(DType::fp8) == "__nv_fp8_e4m3");
  CHECK(dtype_is_float(DType::fp8));
}

TEST_CASE("fp8 e4m3: exact values, rounding to nearest even, saturation to 448") {
  CHECK(e4m3_to_float(0x38) == 1.0f);
  CHECK(e4m3_to_float(0x7e) == 448.0f);
  CHECK(e4m3_to_float(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal
  CHECK(e4m3_to_float(0x08) == std::ldexp(1.0f, -6));  // smallest normal
  CHECK(e4m3_to_float(0x07) == 7 * std::ldexp(1.0f, -9));
  CHECK(e4m3_to_float(0xb8) == -1.0f);
  // 1 + 1/16 is half way between 1 and 1 + 1/8: ties go to the even mantissa.
  CHECK(float_to_e4m3(1.0f + 1.0f / 16) == 0x38);
  CHECK(float_to_e4m3(1.0f + 3.0f / 16) == 0x3a);
  CHECK(float_to_e4m3(std::nextafter(1.0f + 1.0f / 16, 2.0f)) == 0x39);
  // Saturation: above 448 (464 is the midpoint to the next binade's step) to 448, infinity too.
  CHECK(float_to_e4m3(449.0f) == 0x7e);
  CHECK(float_to_e4m3(464.0f) == 0x7e);
  CHECK(float_to_e4m3(1e6f) == 0x7e);
  CHECK(float_to_e4m3(-1e6f) == 0xfe);
  CHECK(float_to_e4m3(std::numeric_limits<float>::infinity()) == 0x7e);
  CHECK(float_to_e4m3(-std::numeric_limits<float>::infinity()) == 0xfe);
  CHECK(float_to_e4m3(std::numeric_limits<float>::quiet_NaN()) == 0x7f);
  // Underflow: half the smallest subnormal ties to zero, a little more rounds up to it.
  CHECK(float_to_e4m3(std::ldexp(1.0f, -10)) == 0x00);
  CHECK(float_to_e4m3(-std::ldexp(1.0f, -10)) == 0x80);
  CHECK(float_to_e4m3(std::ldexp(1.5f, -10)) == 0x01);
  CHECK(float_to_e4m3(3 * std::ldexp(1.0f, -10)) == 0x02);  // 1.5 units: ties to 2
  // The largest subnormal rounds up into the normals across the boundary.
  CHECK(float_to_e4m3(7.5f * std::ldexp(1.0f, -9)) == 0x08);
  CHECK(float_to_e4m3(240.0f) == 0x77);
  CHECK(float_to_e4m3(248.0f) == 0x78);  // midpoint of 240 and 256 goes to 256 (even)
  // Through the buffer accessors.
  unsigned char buf[2] = {0, 0};
  store_element(buf, DType::fp8, 1, -3.0);
  CHECK(buf[1] == 0xc4);
  CHECK(load_element(buf, DType::fp8, 1) == -3.0);
}
