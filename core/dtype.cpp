#include "core/dtype.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/input_error.hpp"

namespace hone {

DType parse_dtype(const std::string& name) {
  if (name == "bf16") return DType::bf16;
  if (name == "f16") return DType::f16;
  if (name == "f32" || name == "float") return DType::f32;
  if (name == "f64" || name == "double") return DType::f64;
  if (name == "i32" || name == "int") return DType::i32;
  if (name == "i64") return DType::i64;
  if (name == "fp8" || name == "e4m3") return DType::fp8;
  throw InputError("unknown dtype '" + name + "' (expected bf16, f16, f32, f64, i32, i64 or fp8)");
}

std::string dtype_name(DType t) {
  switch (t) {
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::fp8: return "fp8";
  }
  return "?";
}

std::string dtype_cuda_type(DType t) {
  switch (t) {
    case DType::bf16: return "__nv_bfloat16";
    case DType::f16: return "__half";
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::i32: return "int";
    case DType::i64: return "long long";
    case DType::fp8: return "__nv_fp8_e4m3";
  }
  return "?";
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::fp8: return 1;
    case DType::bf16:
    case DType::f16: return 2;
    case DType::f32:
    case DType::i32: return 4;
    case DType::f64:
    case DType::i64: return 8;
  }
  return 0;
}

bool dtype_is_float(DType t) { return t != DType::i32 && t != DType::i64; }

float bf16_to_float(std::uint16_t b) {
  std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::uint16_t float_to_f16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint32_t sign = (x >> 16) & 0x8000;
  std::uint32_t abs = x & 0x7fffffff;
  if (abs > 0x7f800000) return static_cast<std::uint16_t>(sign | 0x7e00);  // NaN
  if (abs >= 0x477ff000) return static_cast<std::uint16_t>(sign | 0x7c00);  // rounds to infinity
  if (abs < 0x38800000) {  // subnormal in f16: scale into the integer range and round to even
    float a;
    std::memcpy(&a, &abs, 4);
    float scaled = a * 16777216.0f;  // 2^24: one unit is the smallest f16 subnormal
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  std::uint32_t mant_odd = (abs >> 13) & 1;
  abs += 0xfff + mant_odd;
  abs -= 0x38000000;  // rebias exponent from 127 to 15
  return static_cast<std::uint16_t>(sign | (abs >> 13));
}

float f16_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ff;
  float out;
  if (exp == 0) {
    out = std::ldexp(static_cast<float>(mant), -24);
    if (sign) out = -out;
    return out;
  }
  std::uint32_t u = exp == 31 ? (sign | 0x7f800000 | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&out, &u, 4);
  return out;
}

std::uint8_t float_to_e4m3(float f) {
  // On the float's bits: a weight generator converts 10^8 values, so no frexp or ldexp.
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const auto sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7f;
  // From 464 (448 and half a step: the tie goes to 448's even mantissa) up, infinity included.
  if (a >= 0x43e80000u) return static_cast<std::uint8_t>(sign | 0x7e);
  if (a < 0x3c800000u) {  // below 2^-6: multiples of 2^-9 (subnormals), 8 of them being 2^-6
    float v;
    std::memcpy(&v, &a, 4);
    return static_cast<std::uint8_t>(sign | static_cast<std::uint8_t>(std::nearbyint(v * 512.0f)));
  }
  // Rebias the exponent from 127 to 7 and round the 23-bit mantissa to 3 bits, to nearest even;
  // a carry out of the mantissa moves into the exponent, as it should.
  const std::uint32_t r = a + 0x7ffffu + ((a >> 20) & 1u);
  return static_cast<std::uint8_t>(sign | ((r >> 20) - (120u << 3)));
}

float e4m3_to_float(std::uint8_t code) {
  const int exp = (code >> 3) & 0xf, mant = code & 7;
  if (exp == 15 && mant == 7) return std::numeric_limits<float>::quiet_NaN();
  const float v = exp == 0 ? std::ldexp(static_cast<float>(mant), -9) : std::ldexp(1.0f + mant / 8.0f, exp - 7);
  return (code & 0x80) ? -v : v;
}

double load_element(const void* data, DType t, std::size_t i) {
  const auto* p = static_cast<const unsigned char*>(data);
  switch (t) {
    case DType::bf16: {
      std::uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return bf16_to_float(v);
    }
    case DType::f16: {
      std::uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return f16_to_float(v);
    }
    case DType::f32: {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    case DType::f64: {
      double v;
      std::memcpy(&v, p + 8 * i, 8);
      return v;
    }
    case DType::i32: {
      std::int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    case DType::i64: {
      std::int64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return static_cast<double>(v);
    }
    case DType::fp8: return e4m3_to_float(p[i]);
  }
  return 0;
}

void store_element(void* data, DType t, std::size_t i, double value) {
  auto* p = static_cast<unsigned char*>(data);
  switch (t) {
    case DType::bf16: {
      std::uint16_t v = float_to_bf16(static_cast<float>(value));
      std::memcpy(p + 2 * i, &v, 2);
      return;
    }
    case DType::f16: {
      std::uint16_t v = float_to_f16(static_cast<float>(value));
      std::memcpy(p + 2 * i, &v, 2);
      return;
    }
    case DType::f32: {
      float v = static_cast<float>(value);
      std::memcpy(p + 4 * i, &v, 4);
      return;
    }
    case DType::f64:
      std::memcpy(p + 8 * i, &value, 8);
      return;
    case DType::i32: {
      auto v = static_cast<std::int32_t>(value);
      std::memcpy(p + 4 * i, &v, 4);
      return;
    }
    case DType::i64: {
      auto v = static_cast<std::int64_t>(value);
      std::memcpy(p + 8 * i, &v, 8);
      return;
    }
    case DType::fp8:
      // Through float, as a kernel converts: the double is rounded twice, which only matters for
      // values within 2^-24 relative of an e4m3 midpoint.
      p[i] = float_to_e4m3(static_cast<float>(value));
      return;
  }
}

void store_elements(void* data, DType t, std::size_t first, const double* values, std::size_t count) {
  auto* p = static_cast<unsigned char*>(data) + first * dtype_size(t);
  auto each = [&](auto convert) {
    using Stored = decltype(convert(0.0));
    for (std::size_t k = 0; k < count; ++k) {
      const Stored v = convert(values[k]);
      std::memcpy(p + k * sizeof(Stored), &v, sizeof(Stored));
    }
  };
  switch (t) {
    case DType::bf16: return each([](double v) { return float_to_bf16(static_cast<float>(v)); });
    case DType::f16: return each([](double v) { return float_to_f16(static_cast<float>(v)); });
    case DType::f32: return each([](double v) { return static_cast<float>(v); });
    case DType::f64: return each([](double v) { return v; });
    default:
      for (std::size_t k = 0; k < count; ++k) store_element(data, t, first + k, values[k]);
  }
}

}  // namespace hone
