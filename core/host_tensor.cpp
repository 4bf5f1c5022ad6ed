#include "core/host_tensor.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace hone {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal(double mean, double stddev) {
  double u1 = uniform();
  double u2 = uniform();
  if (u1 < 1e-300) u1 = 1e-300;
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

HostTensor generate_tensor(DType dtype, std::size_t n, const InputDist& dist, Rng& rng, std::size_t rows) {
  HostTensor t(dtype, n);
  if (rows == 0 || n % rows != 0) rows = 1;
  const std::size_t per_row = n / rows;
  const double log_lo = std::log(dist.row_scale_lo), log_hi = std::log(dist.row_scale_hi);
  for (std::size_t r = 0; r < rows; ++r) {
    const double scale = dist.mixed_scale() ? std::exp(log_lo + (log_hi - log_lo) * rng.uniform()) : 1.0;
    for (std::size_t i = r * per_row; i < (r + 1) * per_row; ++i) {
      double v = dist.kind == "uniform" ? dist.lo + (dist.hi - dist.lo) * rng.uniform() : rng.normal(dist.mean, dist.std);
      t.set(i, v * scale);
    }
  }
  return t;
}

void poison(HostTensor& t, std::uint64_t garbage_seed) {
  if (garbage_seed == 0) {
    if (dtype_is_float(t.dtype)) {
      for (std::size_t i = 0; i < t.count; ++i) t.set(i, std::numeric_limits<double>::quiet_NaN());
    } else {
      std::memset(t.bytes.data(), 0x7f, t.bytes.size());
    }
    return;
  }
  Rng rng(garbage_seed);
  const double magnitude = std::exp(std::log(0.1) + std::log(100.0) * rng.uniform());  // 0.1 .. 10
  for (std::size_t i = 0; i < t.count; ++i) {
    if (dtype_is_float(t.dtype)) {
      t.set(i, rng.normal(0, magnitude));
    } else {
      const std::uint64_t bits = rng.next();
      std::memcpy(t.bytes.data() + i * dtype_size(t.dtype), &bits, dtype_size(t.dtype));
    }
  }
}

bool fill_signalling_nan(HostTensor& t) {
  // Exponent all ones, quiet bit clear, lowest payload bit set.
  auto fill = [&t](auto bits) {
    for (std::size_t i = 0; i < t.count; ++i) std::memcpy(t.bytes.data() + i * sizeof bits, &bits, sizeof bits);
  };
  switch (t.dtype) {
    case DType::f32: fill(std::uint32_t{0x7f800001}); return true;
    case DType::f64: fill(std::uint64_t{0x7ff0000000000001}); return true;
    case DType::bf16: fill(std::uint16_t{0x7f81}); return true;
    case DType::f16: fill(std::uint16_t{0x7c01}); return true;
    default: return false;
  }
}

}  // namespace hone
