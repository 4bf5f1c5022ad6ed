#include "validator/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace hone {

namespace {

// The rms of each row's finite checked elements.
std::vector<double> row_rms(const HostTensor& t, const CheckedElements& only, std::size_t row_length) {
  const std::size_t rows = (t.count + row_length - 1) / row_length;
  std::vector<double> sum_of_squares(rows, 0.0), counts(rows, 0.0), rms(rows, 0.0);
  for_each_checked(t.count, only, [&](std::size_t i) {
    const double v = t.at(i);
    if (!std::isfinite(v)) return;
    sum_of_squares[i / row_length] += v * v;
    counts[i / row_length] += 1;
  });
  for (std::size_t r = 0; r < rows; ++r)
    if (counts[r] > 0) rms[r] = std::sqrt(sum_of_squares[r] / counts[r]);
  return rms;
}

}  // namespace

Comparison compare_buffers(const HostTensor& got, const HostTensor& expected, const Tolerance& tol, const CheckedElements& only,
                           std::size_t row_length) {
  Comparison c;
  if (row_length == 0 || row_length > expected.count) row_length = std::max<std::size_t>(expected.count, 1);
  const std::vector<double> rms = tol.row_rtol > 0 ? row_rms(expected, only, row_length) : std::vector<double>{};
  for_each_checked(expected.count, only, [&](std::size_t i) {
    const double e = expected.at(i), g = got.at(i);
    const double row = rms.empty() ? 0.0 : rms[i / row_length];
    const double bound = tol.atol + tol.rtol * std::fabs(e) + tol.row_rtol * row;
    double err = std::fabs(g - e);
    double ratio;
    if (std::isnan(g) || std::isnan(e) || std::isinf(g) || std::isinf(e)) {
      // Equal infinities agree; any NaN, or an infinity against a finite value, does not.
      const bool agree = std::isinf(g) && std::isinf(e) && (g > 0) == (e > 0);
      ratio = agree ? 0 : std::numeric_limits<double>::infinity();
      err = agree ? 0 : std::numeric_limits<double>::infinity();
    } else {
      ratio = bound > 0 ? err / bound : (err > 0 ? std::numeric_limits<double>::infinity() : 0);
    }
    if (ratio > 1) ++c.mismatches;
    if (err > c.max_abs_err) c.max_abs_err = err;
    if (c.worst_index < 0 || ratio > c.worst_ratio) {
      c.worst_ratio = ratio;
      c.worst_index = static_cast<std::int64_t>(i);
      c.got = g;
      c.expected = e;
      c.row_rms = row;
    }
  });
  return c;
}

namespace {

// Fixed-size copies, so that the compiler compares words instead of calling memcmp per element.
template <std::size_t N>
bool same_word(const unsigned char* a, const unsigned char* b) {
  unsigned char x[N], y[N];
  std::memcpy(x, a, N);
  std::memcpy(y, b, N);
  return std::memcmp(x, y, N) == 0;
}

}  // namespace

bool same_bits(const HostTensor& a, const HostTensor& b, std::size_t i) {
  const std::size_t size = dtype_size(a.dtype);
  const unsigned char *p = a.bytes.data() + i * size, *q = b.bytes.data() + i * size;
  switch (size) {
    case 1: return *p == *q;
    case 2: return same_word<2>(p, q);
    case 4: return same_word<4>(p, q);
    case 8: return same_word<8>(p, q);
    default: return std::memcmp(p, q, size) == 0;
  }
}

std::vector<bool> kept_elements(const HostTensor& before, const HostTensor& after, const HostTensor& probe_before,
                                const HostTensor& probe_after, const CheckedElements& only) {
  const bool probed = probe_before.count == after.count && probe_after.count == after.count;
  std::vector<bool> kept(after.count);
  for_each_checked(after.count, only, [&](std::size_t i) {
    kept[i] = same_bits(before, after, i) && (!probed || same_bits(probe_before, probe_after, i));
  });
  return kept;
}

std::int64_t first_change_of_kept(const HostTensor& got_before, const HostTensor& got, const std::vector<bool>& kept,
                                  const CheckedElements& only) {
  std::int64_t first = -1;
  for_each_checked(std::min(kept.size(), got.count), only, [&](std::size_t i) {
    if (first < 0 && kept[i] && !same_bits(got_before, got, i)) first = static_cast<std::int64_t>(i);
  });
  return first;
}

std::string format_index(std::int64_t flat, const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> idx(extents.size());
  for (std::size_t d = extents.size(); d-- > 0;) {
    idx[d] = extents[d] ? flat % extents[d] : 0;
    flat = extents[d] ? flat / extents[d] : 0;
  }
  std::string s = "[";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

}  // namespace hone
