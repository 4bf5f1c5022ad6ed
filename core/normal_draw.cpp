#include "core/normal_draw.hpp"

#include <array>
#include <cmath>

namespace hone {

namespace {

constexpr int kLayers = 128;
// Where the tail starts, and the area of each layer (the tail's included in the bottom one), for
// 128 layers under exp(-x^2 / 2).
constexpr double kTailStart = 3.442619855899;
constexpr double kLayerArea = 9.91256303526217e-3;

double density(double x) { return std::exp(-0.5 * x * x); }

// edge[i]: the right edge of layer i (edge[0] the bottom layer's width as a rectangle of the
// layer's area, edge[kLayers] = 0 at the top); height[i] = density(edge[i]).
struct Ziggurat {
  std::array<double, kLayers + 1> edge{}, height{};

  Ziggurat() {
    edge[0] = kLayerArea / density(kTailStart);
    edge[1] = kTailStart;
    for (int i = 1; i < kLayers - 1; ++i) edge[i + 1] = std::sqrt(-2.0 * std::log(kLayerArea / edge[i] + density(edge[i])));
    edge[kLayers] = 0;
    for (int i = 0; i <= kLayers; ++i) height[i] = density(edge[i]);
    height[0] = 0;  // below the bottom layer: nothing
  }
};

const Ziggurat kZiggurat;

// 53 random bits as a uniform in (0, 1).
double open_uniform(std::uint64_t bits) { return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53; }

// A draw that fell outside its layer's inner rectangle (about one in a hundred): the tail, or the
// sliver beside the density, else a fresh draw. Kept out of line so that the common path is a
// few instructions in the caller's loop.
[[gnu::noinline]] double draw_outside(const Ziggurat& z, Rng& rng, int layer, double sign, double x);

inline double draw(const Ziggurat& z, Rng& rng) {
  const std::uint64_t bits = rng.next();
  const int layer = static_cast<int>(bits & (kLayers - 1));
  const double sign = 1.0 - 2.0 * static_cast<double>((bits >> 7) & 1);  // no branch: it would be a coin toss
  const double x = open_uniform(bits) * z.edge[layer];
  // Inside the rectangle that lies wholly under the density: most draws end here.
  if (x < z.edge[layer + 1]) [[likely]]
    return sign * x;
  return draw_outside(z, rng, layer, sign, x);
}

double draw_outside(const Ziggurat& z, Rng& rng, int layer, double sign, double x) {
  if (layer == 0) {
    // The tail beyond kTailStart, by Marsaglia's exponential rejection.
    double tx, ty;
    do {
      tx = -std::log(open_uniform(rng.next())) / kTailStart;
      ty = -std::log(open_uniform(rng.next()));
    } while (2 * ty < tx * tx);
    return sign * (kTailStart + tx);
  }
  // The sliver of the layer beside the density: keep x when a uniform height falls under it.
  const double y = z.height[layer] + open_uniform(rng.next()) * (z.height[layer + 1] - z.height[layer]);
  if (y < density(x)) return sign * x;
  return draw(z, rng);
}

}  // namespace

double standard_normal(Rng& rng) { return draw(kZiggurat, rng); }

void fill_standard_normal(Rng& rng, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = draw(kZiggurat, rng);
}

}  // namespace hone
