#include <doctest/doctest.h>

#include <cmath>

#include "core/host_tensor.hpp"
#include "core/paths.hpp"

using namespace hone;

TEST_CASE("op specs: input cases and hidden cases with their tolerance overrides") {
  for (const auto& name : list_op_families(templates_root())) {
    CAPTURE(name);
    OpSpec op = load_op(templates_root(), name);
    CHECK(op.input_cases.size() >= 2);
    CHECK(op.hidden_cases.size() >= 2);
  }
  OpSpec op = load_op(templates_root(), "rmsnorm");
  const InputCase* tiny = nullptr;
  for (const auto& c : op.hidden_cases)
    if (c.name == "tiny") tiny = &c;
  REQUIRE(tiny);
  CHECK(op.tolerance_for(DType::bf16, tiny).atol == doctest::Approx(0.001));
  CHECK(op.tolerance_for(DType::bf16).atol == doctest::Approx(0.01));
}

TEST_CASE("mixed-scale inputs: each row has its own scale within the range") {
  InputDist d;
  d.row_scale_lo = 0.01;
  d.row_scale_hi = 100;
  Rng rng(9);
  const std::size_t rows = 64, cols = 512;
  HostTensor t = generate_tensor(DType::f32, rows * cols, d, rng, rows);
  double smallest = 1e30, largest = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (std::size_t c = 0; c < cols; ++c) ss += t.at(r * cols + c) * t.at(r * cols + c);
    const double rms = std::sqrt(ss / cols);
    smallest = std::min(smallest, rms);
    largest = std::max(largest, rms);
    CHECK(rms > 0.008);
    CHECK(rms < 125);
  }
  CHECK(largest / smallest > 100);  // the rows really do differ in scale
}
