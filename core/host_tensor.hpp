#pragma once
// Host buffers of kernel arguments and the seeded generators that fill them. The generator is
// hone's own (not std::normal_distribution) so that a seed gives the same inputs on every
// machine and standard library.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dtype.hpp"
#include "core/op_spec.hpp"
#include "core/tensor_bytes.hpp"

namespace hone {

struct HostTensor {
  DType dtype = DType::f32;
  std::size_t count = 0;
  TensorBytes bytes;  // shared by copies until one is written

  HostTensor() = default;
  HostTensor(DType t, std::size_t n) : dtype(t), count(n), bytes(n * dtype_size(t)) {}
  /// A tensor whose every element the caller writes before reading any (a whole draw, a
  /// download): its bytes are not zeroed first.
  static HostTensor uninitialized(DType t, std::size_t n) {
    HostTensor h;
    h.dtype = t;
    h.count = n;
    h.bytes = TensorBytes::uninitialized(n * dtype_size(t));
    return h;
  }
  double at(std::size_t i) const { return load_element(bytes.data(), dtype, i); }
  void set(std::size_t i, double v) { store_element(bytes.data(), dtype, i, v); }
  std::size_t size_bytes() const { return bytes.size(); }
};

/// splitmix64-seeded xoshiro256** stream, the same on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  /// xoshiro256**; inline, as filling a weight matrix calls it a billion times.
  std::uint64_t next() {
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
  double uniform();                          // [0, 1)
  double normal(double mean, double stddev); // Box-Muller
 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

/// The scale of each of `rows` rows: 1 unless `dist` mixes scales, then drawn log-uniformly
/// between its bounds from `rng`.
std::vector<double> row_scales(const InputDist& dist, Rng& rng, std::size_t rows);

/// A buffer of `n` elements drawn from `dist`, rounded to `dtype`; `rows` is the extent of the
/// first dim, over which a mixed-scale distribution varies its scale. Stretches of a million
/// elements get streams of their own, seeded from `rng`, and are filled on all cores.
HostTensor generate_tensor(DType dtype, std::size_t n, const InputDist& dist, Rng& rng, std::size_t rows = 1);

/// Sorted, disjoint [first, second) element ranges of a buffer.
using ElementSpans = std::vector<std::pair<std::size_t, std::size_t>>;

/// Draws the elements of `spans` of `t` from `dist` the way generate_tensor draws a whole buffer
/// (the spans taken end to end, a million elements a stream, on all cores), row r of `row_scale`
/// elements (all of them when it is empty) times row_scale[r].
void draw_spans(HostTensor& t, const InputDist& dist, Rng& rng, const std::vector<double>& row_scale,
                const ElementSpans& spans);

/// Fills a buffer with poison, so that an output element the kernel never writes cannot pass as
/// correct: with `garbage_seed` 0 the NaN pattern (quiet NaN for floats, 0x7fffffff-style for
/// integers); with another seed finite garbage drawn from it (numbers of the magnitudes outputs
/// have, random integers), so that asking whether the output already holds a number tells a
/// kernel nothing about whether it is being checked or timed.
void poison(HostTensor& t, std::uint64_t garbage_seed = 0);

/// Fills a float buffer with a signalling NaN, whose bits no arithmetic gives back (the CPU
/// quiets it, the GPU writes its canonical NaN), so that an element that still holds them after
/// a launch was not computed on, only copied or left alone. False, and nothing filled, for a
/// dtype that has no signalling NaN (fp8 e4m3, integers).
bool fill_signalling_nan(HostTensor& t);

}  // namespace hone
