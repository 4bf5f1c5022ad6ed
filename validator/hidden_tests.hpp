#pragma once
// Which hidden tests a candidate gets (stage 3 runs them, validator/hidden_stage.hpp): shapes
// and inputs the proposer never sees. For every dynamic dim, other sizes inside its bucket (its
// lower bound, one below the upper bound, a value between that is not a power of two), and with
// several dynamic dims all of them inside at once; the spec's adversarial input cases; and every
// adversarial mode of every index input (one long and many short sequences, pages in reverse
// order, padded rows, experts all tokens share), at the visible shape, where the batch is largest.
// Each test draws its own value of every runtime scalar from the spec's range (eps, scale: an
// exported kernel is called with the engine's own). Their seeds are drawn at validation time.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/index_inputs.hpp"
#include "core/model_shapes.hpp"
#include "core/op_spec.hpp"

namespace hone {

struct HiddenTest {
  Bindings shape;
  const InputCase* input_case = nullptr;  // nullptr: the arguments' own distributions
  IndexModes modes;                       // index inputs drawn adversarially (absent: typical)
  std::uint64_t seed = 0;
  std::map<std::string, double> scalars;  // every float scalar: drawn from its range
  std::string label;                      // "tokens=13, eps=3.1e-06", "batch=8, seq_lens one_long, scale=0.2": for the stored reason only
};

/// A value of a float scalar drawn from its range: log-uniform when the range is positive (eps
/// and scales span magnitudes), else uniform.
double draw_scalar(const ArgSpec& scalar, Rng& rng);

/// The hidden tests of a candidate tuned at `shape` for the given buckets of its dynamic dims.
std::vector<HiddenTest> hidden_tests(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& buckets,
                                     Rng& rng);

/// The default buckets for a dynamic dim's value when none is given (hone check): powers of two
/// up to 64 (1, 2, 3..4, 5..8, ...) and beyond, the power-of-two range holding the value.
Bucket default_bucket_for(std::int64_t value);

}  // namespace hone
