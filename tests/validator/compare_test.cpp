#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "validator/compare.hpp"
#include "validator/timing.hpp"

using namespace hone;

TEST_CASE("compare: tolerance is atol + rtol*|expected|, and NaN or Inf never pass") {
  HostTensor e(DType::f32, 4), g(DType::f32, 4);
  for (int i = 0; i < 4; ++i) e.set(i, 10.0);
  g.set(0, 10.0);
  g.set(1, 10.5);   // within 0.1 + 0.05*10 = 0.6
  g.set(2, 10.7);   // outside
  g.set(3, std::numeric_limits<double>::quiet_NaN());
  Comparison c = compare_buffers(g, e, {0.1, 0.05});
  CHECK(c.mismatches == 2);
  CHECK(c.worst_index == 3);
  CHECK(std::isinf(c.worst_ratio));
  g.set(3, 10.0);
  c = compare_buffers(g, e, {0.1, 0.05});
  CHECK(c.mismatches == 1);
  CHECK(c.worst_index == 2);
  CHECK(c.max_abs_err == doctest::Approx(0.7));
  e.set(0, std::numeric_limits<double>::infinity());
  g.set(0, std::numeric_limits<double>::infinity());
  CHECK(compare_buffers(g, e, {0.1, 0.05}).mismatches == 1);
}

// The H200's finding: a tensor-core sum (fp32, truncated) 0.0029 off an element that cancels to
// 0.1025 in a row scaled 644x, whose other elements are near 825. Here 0.0075 off.
TEST_CASE("compare: row_rtol allows each element a share of its own row's rms, not of another row's") {
  const std::size_t n = 64;
  HostTensor e(DType::f32, 2 * n), g(DType::f32, 2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    e.set(i, (i % 2 ? 825.0 : -825.0));  // row 0: large, rms 825
    e.set(n + i, (i % 2 ? 1.0 : -1.0));  // row 1: rms 1
  }
  e.set(5, 0.1025);
  for (std::size_t i = 0; i < 2 * n; ++i) g.set(i, e.at(i));
  g.set(5, 0.11);
  const Tolerance plain{0.001, 0.015625}, by_row{0.001, 0.015625, 1.0 / 2048};
  CHECK(compare_buffers(g, e, plain, {}, n).mismatches == 1);
  Comparison c = compare_buffers(g, e, by_row, {}, n);
  CHECK(c.mismatches == 0);
  CHECK(c.row_rms == doctest::Approx(825.0).epsilon(0.01));

  // The same error in the row of rms 1 is outside: a small row does not borrow a large row's rms.
  g.set(5, e.at(5));
  e.set(n + 5, 0.1025);
  g.set(n + 5, 0.11);
  c = compare_buffers(g, e, by_row, {}, n);
  CHECK(c.mismatches == 1);
  CHECK(c.worst_index == static_cast<std::int64_t>(n + 5));
  // Without rows, the whole buffer is one: its rms would hide the error, which is why rows are kept apart.
  CHECK(compare_buffers(g, e, by_row).mismatches == 0);

  // A sum kept in bf16 is off by about 2^-9 of the rms, four times what row_rtol allows.
  for (std::size_t i = 0; i < 2 * n; ++i) g.set(i, e.at(i) * (1 + 1.0 / 512) + (i < n ? 825.0 : 1.0) / 512);
  CHECK(compare_buffers(g, e, by_row, {}, n).mismatches > 0);
}

TEST_CASE("compare: an in-out element the reference keeps must keep its bits, whatever the tolerance") {
  HostTensor before(DType::bf16, 4);
  for (int i = 0; i < 4; ++i) before.set(i, 1.0 + i);
  HostTensor expected = before, got = before;
  expected.set(3, 7.0);  // the reference writes element 3 and leaves 0..2 as they came in
  const std::vector<bool> kept = kept_elements(before, expected, {}, {});
  CHECK(kept == std::vector<bool>{true, true, true, false});
  got.set(3, 7.0);
  CHECK(first_change_of_kept(before, got, kept) == -1);
  got.set(3, 7.03125);  // a changed element differing by one ulp is the tolerance's business
  CHECK(first_change_of_kept(before, got, kept) == -1);
  got.set(1, 2.015625);   // one bf16 ulp above 2, far inside rtol 1/64, on a kept element
  CHECK(compare_buffers(got, expected, {1e-3, 1.0 / 64}).mismatches == 0);
  CHECK(first_change_of_kept(before, got, kept) == 1);
  // In a chain the candidate's state going in is its own: kept means unchanged from that.
  HostTensor own_before = got;
  CHECK(first_change_of_kept(own_before, got, kept) == -1);
  // +0 and -0 are equal numbers but different bits: a kept +0 written back as -0 is a change.
  before.set(0, 0.0);
  got = before;
  got.set(0, -0.0);
  CHECK(first_change_of_kept(before, got, kept_elements(before, before, {}, {})) == 0);
}

TEST_CASE("compare: an element the reference computes on is not kept, even where its result rounds back to its bits") {
  HostTensor before(DType::f32, 3);
  for (int i = 0; i < 3; ++i) before.set(i, 1.0 + i);
  const HostTensor after = before;  // every update rounded back
  HostTensor probe_before = before;
  REQUIRE(fill_signalling_nan(probe_before));
  HostTensor probe_after = probe_before;
  probe_after.set(1, std::numeric_limits<double>::quiet_NaN());  // computed on: the signalling NaN came back quiet
  CHECK(kept_elements(before, after, probe_before, probe_after) == std::vector<bool>{true, false, true});
  HostTensor got = before;
  got.set(1, std::nextafter(2.0f, 3.0f));
  CHECK(first_change_of_kept(before, got, kept_elements(before, after, probe_before, probe_after)) == -1);
  got.set(2, std::nextafter(3.0f, 4.0f));
  CHECK(first_change_of_kept(before, got, kept_elements(before, after, probe_before, probe_after)) == 2);
}

TEST_CASE("compare: multi-dimensional index of the worst element") {
  CHECK(format_index(0, {5, 256}) == "[0, 0]");
  CHECK(format_index(4 * 256 + 17, {5, 256}) == "[4, 17]");
  CHECK(format_index(7, {8}) == "[7]");
}

TEST_CASE("timing summary: median, minimum and spread") {
  TimingStats t = summarize_samples({5, 1, 3, 2, 4}, "cpu");
  CHECK(t.median_ms == 3);
  CHECK(t.min_ms == 1);
  CHECK(t.runs == 5);
  CHECK(t.spread == doctest::Approx((4.0 - 1.0) / 3.0));
  CHECK(summarize_samples({2, 4}, "gpu").median_ms == 3);
}

TEST_CASE("compare: only the checked ranges are compared, kept and searched for changes, at flat indices") {
  HostTensor e(DType::f32, 10), g(DType::f32, 10);
  for (int i = 0; i < 10; ++i) e.set(i, 1.0), g.set(i, 1.0);
  g.set(1, 5.0);  // outside the ranges: not this comparison's to judge
  g.set(7, 1.5);  // inside
  const CheckedElements only{{3, 5}, {6, 9}};
  Comparison c = compare_buffers(g, e, {0.01, 0.0}, only);
  CHECK(c.mismatches == 1);
  CHECK(c.worst_index == 7);
  CHECK(compare_buffers(g, e, {0.01, 0.0}).mismatches == 2);

  const std::vector<bool> kept = kept_elements(e, e, {}, {}, only);
  CHECK(kept == std::vector<bool>{false, false, false, true, true, false, true, true, true, false});
  CHECK(first_change_of_kept(e, g, kept, only) == 7);
  g.set(7, 1.0);
  CHECK(first_change_of_kept(e, g, kept, only) == -1);
}
