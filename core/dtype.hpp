#pragma once
// Element types of kernel arguments and their host-side conversions.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace hone {

// fp8 is e4m3 (__nv_fp8_e4m3): 4 exponent bits (bias 7), 3 mantissa bits, no infinity; 0x7f
// and 0xff are its only NaNs, 448 its largest finite value.
enum class DType { bf16, f16, f32, f64, i32, i64, fp8 };

/// Parses "bf16", "f16", "f32", "f64", "i32", "i64", "fp8"; throws InputError otherwise.
DType parse_dtype(const std::string& name);
std::string dtype_name(DType t);
/// The CUDA C++ spelling (__nv_bfloat16, __half, float, ...).
std::string dtype_cuda_type(DType t);
std::size_t dtype_size(DType t);
bool dtype_is_float(DType t);

/// bf16 and f16 from and to float on the host, rounding to nearest even as the device does.
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if (f != f) return static_cast<std::uint16_t>((u >> 16) | 0x40);  // NaN: keep it a quiet one
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<std::uint16_t>(u >> 16);
}
float bf16_to_float(std::uint16_t b);
std::uint16_t float_to_f16(float f);
float f16_to_float(std::uint16_t h);
/// e4m3 from float as CUDA's __nv_fp8_e4m3(float) converts (round to nearest even, saturating
/// to +-448: there is no infinity; NaN becomes 0x7f), and back (exact).
std::uint8_t float_to_e4m3(float f);
float e4m3_to_float(std::uint8_t code);

/// Reads element i of a buffer of type t as double; stores a double into element i (rounded).
double load_element(const void* data, DType t, std::size_t i);
void store_element(void* data, DType t, std::size_t i, double value);
/// Stores values[0..count) into elements first.. of a buffer of type t: the type is looked at
/// once, not per element (filling a weight matrix).
void store_elements(void* data, DType t, std::size_t first, const double* values, std::size_t count);

}  // namespace hone
