#include "validator/hidden_tests.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hone {

double draw_scalar(const ArgSpec& a, Rng& rng) {
  if (a.range_lo > 0 && a.range_hi > a.range_lo)
    return std::exp(std::log(a.range_lo) + (std::log(a.range_hi) - std::log(a.range_lo)) * rng.uniform());
  return a.range_lo + (a.range_hi - a.range_lo) * rng.uniform();
}

namespace {

// Every test its own values: the label names them, so a verdict says which eps failed. A value
// the test's input case sets is the one the kernel gets, and the one the label names.
void draw_scalars(const OpSpec& op, HiddenTest& t, Rng& rng) {
  for (const auto& a : op.args) {
    if (a.pointer || !dtype_is_float(a.dtype)) continue;
    double v = draw_scalar(a, rng);
    if (t.input_case && t.input_case->scalars.count(a.name)) v = t.input_case->scalars.at(a.name);
    t.scalars[a.name] = v;
    t.label += fmt::format(", {}={:.3g}", a.name, v);
  }
}

}  // namespace

Bucket default_bucket_for(std::int64_t value) {
  if (value <= 1) return {1, 1};
  std::int64_t hi = 1;
  while (hi < value) hi *= 2;
  return {hi / 2 + 1, hi};
}

std::vector<HiddenTest> hidden_tests(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& buckets,
                                     Rng& rng) {
  std::vector<HiddenTest> out;
  Bindings mid_shape = shape;  // where the adversarial cases run: inside a bucket when there is room
  for (const auto& [symbol, bucket] : buckets) {
    if (!op.dynamic.count(symbol) || !shape.count(symbol)) continue;
    std::vector<std::int64_t> sizes;
    auto add = [&](std::int64_t v) {
      if (v >= bucket.lo && v <= bucket.hi && v != shape.at(symbol) && std::find(sizes.begin(), sizes.end(), v) == sizes.end())
        sizes.push_back(v);
    };
    add(bucket.lo);
    add(bucket.hi);
    add(bucket.hi - 1);
    if (bucket.hi - bucket.lo > 2) {
      // A value strictly inside, avoiding powers of two: those are the sizes kernels are tuned at.
      for (int attempt = 0; attempt < 8; ++attempt) {
        std::int64_t v = bucket.lo + 1 + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(bucket.hi - bucket.lo - 1));
        if ((v & (v - 1)) != 0 || attempt == 7) {
          add(v);
          mid_shape[symbol] = v;
          break;
        }
      }
    }
    for (auto v : sizes) {
      HiddenTest t;
      t.shape = shape;
      t.shape[symbol] = v;
      t.seed = rng.next();
      t.label = symbol + "=" + std::to_string(v);
      draw_scalars(op, t, rng);
      out.push_back(std::move(t));
    }
  }
  auto dims_label = [&](const Bindings& at) {
    std::string label;
    for (const auto& d : op.dynamic)
      if (at.count(d)) label += (label.empty() ? "" : ",") + d + "=" + std::to_string(at.at(d));
    return label;
  };
  std::size_t moved = 0;
  for (const auto& [symbol, v] : mid_shape) moved += v != shape.at(symbol);
  if (moved > 1) {
    HiddenTest t;
    t.shape = mid_shape;
    t.seed = rng.next();
    t.label = dims_label(mid_shape);
    draw_scalars(op, t, rng);
    out.push_back(std::move(t));
  }
  for (const auto& c : op.hidden_cases) {
    HiddenTest t;
    t.shape = mid_shape;
    t.input_case = &c;
    t.seed = rng.next();
    t.label = dims_label(mid_shape) + ", case " + c.name;
    draw_scalars(op, t, rng);
    out.push_back(std::move(t));
  }
  for (const auto& [arg, mode] : adversarial_index_modes(op, shape)) {
    HiddenTest t;
    t.shape = shape;
    t.modes[arg] = mode;
    t.seed = rng.next();
    t.label = dims_label(shape) + ", " + arg + " " + mode;
    draw_scalars(op, t, rng);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace hone
