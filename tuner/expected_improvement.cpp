#include "tuner/expected_improvement.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hone {

std::vector<PointPrediction> combine_fits(const std::vector<std::vector<float>>& fits) {
  if (fits.empty()) throw std::invalid_argument("combine_fits: no fits");
  const std::size_t points = fits.front().size();
  for (const auto& f : fits)
    if (f.size() != points) throw std::invalid_argument("combine_fits: the fits predict different points");
  std::vector<PointPrediction> out(points);
  const double n = static_cast<double>(fits.size());
  for (std::size_t i = 0; i < points; ++i) {
    double sum = 0;
    for (const auto& f : fits) sum += f[i];
    const double mean = sum / n;
    double squares = 0;
    for (const auto& f : fits) squares += (f[i] - mean) * (f[i] - mean);
    out[i] = {mean, std::sqrt(squares / n)};
  }
  return out;
}

double expected_improvement(const PointPrediction& p, double best) {
  const double gain = best - p.mean;
  if (p.spread <= 0) return std::max(0.0, gain);
  const double z = gain / p.spread;
  const double below = 0.5 * std::erfc(-z / std::sqrt(2.0));                   // P(time < best)
  const double density = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);     // the normal's density at z
  return gain * below + p.spread * density;
}

}  // namespace hone
