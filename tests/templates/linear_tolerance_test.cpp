// The linear families' tolerance under their scaled-up hidden case: where a dot product cancels,
// rtol * |expected| vanishes and atol alone must cover the rounding of an fp32 accumulation, in
// whatever order a correct kernel sums (tensor cores add 16 products at a time to a running fp32
// tile, the coarsest order a kernel here uses).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/dtype.hpp"
#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"
#include "core/paths.hpp"

using namespace hone;

namespace {

const InputCase& hidden_case(const OpSpec& op, const std::string& name) {
  for (const auto& c : op.hidden_cases)
    if (c.name == name) return c;
  FAIL("no hidden case " << name << " in " << op.name);
  throw 0;
}

float bf16_draw(Rng& rng, const InputDist& d) {
  return bf16_to_float(float_to_bf16(static_cast<float>(rng.normal(d.mean, d.std))));
}

// The largest error of fp32 accumulation in 16-product steps against the exact sum, over `rows`
// dot products of length k drawn from the case's distributions of x and w.
double worst_tile_accumulation_error(const InputDist& x, const InputDist& w, int k, int rows) {
  Rng rng(20261203);
  double worst = 0;
  std::vector<float> xs(k), ws(k);
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < k; ++i) xs[i] = bf16_draw(rng, x);
    for (int i = 0; i < k; ++i) ws[i] = bf16_draw(rng, w);
    double exact = 0;
    float running = 0;
    for (int k0 = 0; k0 < k; k0 += 16) {
      float tile = 0;
      for (int i = k0; i < k0 + 16; ++i) {
        exact += static_cast<double>(xs[i]) * ws[i];
        tile += xs[i] * ws[i];
      }
      running += tile;
    }
    worst = std::max(worst, std::abs(static_cast<double>(running) - exact));
  }
  return worst;
}

}  // namespace

TEST_CASE("gemv: the hidden case 'large' tolerates fp32 accumulation in 16-product steps at K=4096 where outputs cancel") {
  const OpSpec op = load_op(templates_root(), "gemv");
  const InputCase& large = hidden_case(op, "large");
  const double error = worst_tile_accumulation_error(large.args.at("x"), large.args.at("w"), 4096, 256);
  const Tolerance tol = op.tolerance_for(DType::bf16, &large);
  CAPTURE(error);
  CHECK(error > 0);  // the case does round: the check below means something
  CHECK(tol.atol >= 2 * error);
  // ... and it is still a tight check: far below the size of an output (about 200 * sqrt(K)).
  CHECK(tol.atol < 1e-3 * 200 * std::sqrt(4096.0));
}
