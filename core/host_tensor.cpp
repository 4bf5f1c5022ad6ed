#include "core/host_tensor.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/normal_draw.hpp"

namespace hone {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal(double mean, double stddev) {
  double u1 = uniform();
  double u2 = uniform();
  if (u1 < 1e-300) u1 = 1e-300;
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

namespace {
// Elements per stretch drawn from a stream of its own: stretches are filled on all cores, and
// the values depend on the seed alone, not on how many cores there are.
constexpr std::size_t kStretch = std::size_t{1} << 20;

void for_each_stretch(std::size_t stretches, const std::function<void(std::size_t)>& fill) {
  const unsigned threads = std::min<std::size_t>(stretches, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (std::size_t c = 0; c < stretches; ++c) fill(c);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t c = next++; c < stretches; c = next++) fill(c);
  };
  std::vector<std::jthread> pool;
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // No more threads under this process's limits: the ones started and this one do the rest.
  }
  work();
}
}  // namespace

std::vector<double> row_scales(const InputDist& dist, Rng& rng, std::size_t rows) {
  std::vector<double> scale(rows, 1.0);
  if (!dist.mixed_scale()) return scale;
  const double log_lo = std::log(dist.row_scale_lo), log_hi = std::log(dist.row_scale_hi);
  for (auto& s : scale) s = std::exp(log_lo + (log_hi - log_lo) * rng.uniform());
  return scale;
}

HostTensor generate_tensor(DType dtype, std::size_t n, const InputDist& dist, Rng& rng, std::size_t rows) {
  HostTensor t = HostTensor::uninitialized(dtype, n);  // the draw below writes every element
  if (rows == 0 || n % rows != 0) rows = 1;
  draw_spans(t, dist, rng, row_scales(dist, rng, rows), {{0, n}});
  return t;
}

void draw_spans(HostTensor& t, const InputDist& dist, Rng& rng, const std::vector<double>& row_scale,
                const ElementSpans& spans) {
  // Where each span starts when the spans are laid end to end.
  std::vector<std::size_t> starts(spans.size() + 1, 0);
  for (std::size_t s = 0; s < spans.size(); ++s) starts[s + 1] = starts[s] + (spans[s].second - spans[s].first);
  const std::size_t total = starts.back();
  const std::size_t per_row = row_scale.empty() ? std::max<std::size_t>(t.count, 1) : t.count / row_scale.size();
  const std::size_t stretches = (total + kStretch - 1) / kStretch;
  std::vector<std::uint64_t> seeds(stretches);
  for (auto& seed : seeds) seed = rng.next();
  const bool uniform = dist.kind == "uniform";
  unsigned char* const out = t.bytes.data();  // once: the threads below write through it
  for_each_stretch(stretches, [&](std::size_t c) {
    Rng stream(seeds[c]);
    const std::size_t begin = c * kStretch, end = std::min(total, begin + kStretch);
    std::size_t span = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), begin) - starts.begin()) - 1;
    // Drawn in doubles a chunk at a time, then stored in the tensor's type in one pass; a chunk
    // ends where its span does, so that it is stored contiguously.
    constexpr std::size_t kChunk = 4096;
    double values[kChunk];
    for (std::size_t at = begin; at < end;) {
      while (at >= starts[span + 1]) ++span;
      const std::size_t first = spans[span].first + (at - starts[span]);
      const std::size_t count = std::min({kChunk, end - at, starts[span + 1] - at});
      if (!uniform) fill_standard_normal(stream, values, count);
      std::size_t row = first / per_row, left_in_row = per_row - first % per_row;
      for (std::size_t k = 0; k < count; ++k) {
        const double v = uniform ? dist.lo + (dist.hi - dist.lo) * stream.uniform() : dist.mean + dist.std * values[k];
        values[k] = row_scale.empty() ? v : v * row_scale[row];
        if (--left_in_row == 0) {
          ++row;
          left_in_row = per_row;
        }
      }
      store_elements(out, t.dtype, first, values, count);
      at += count;
    }
  });
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
  // Through locals: stores through the byte pointer could alias `t`, which would reload its
  // fields at every element and keep the loop from vectorising (a state pool is 134 MB).
  auto fill = [&t](auto bits) {
    unsigned char* const out = t.bytes.data();
    const std::size_t n = t.count;
    for (std::size_t i = 0; i < n; ++i) std::memcpy(out + i * sizeof bits, &bits, sizeof bits);
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
