#pragma once
// bf16 elements of the test doubles' memory (tests/support/fake_libcuda.cpp, fake_libcublas.cpp),
// which link nothing of hone's: read as float, and written rounded to nearest even as the GPU
// does (a NaN stays a NaN).
#include <cstdint>
#include <cstring>

namespace hone::fake {

inline float bf16_at(const void* p, std::int64_t i) {
  std::uint16_t b;
  std::memcpy(&b, static_cast<const char*>(p) + 2 * i, 2);
  const std::uint32_t bits = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline void store_bf16(void* p, std::int64_t i, float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const std::uint16_t b = (f != f) ? std::uint16_t(0x7fc0) : std::uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
  std::memcpy(static_cast<char*>(p) + 2 * i, &b, 2);
}

}  // namespace hone::fake
