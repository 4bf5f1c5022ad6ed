#pragma once
// Standard normal draws for test inputs, by the ziggurat method (Marsaglia and Tsang): 128
// layers of equal area under the density; a draw takes one 64-bit random number and a table
// look-up, and only about one in a hundred needs an exponential or a second number. A weight
// matrix of a billion elements is drawn in seconds, where Box-Muller's log and sine take most
// of the time it takes to fill one.
#include "core/host_tensor.hpp"

namespace hone {

/// One draw from N(0, 1).
double standard_normal(Rng& rng);
/// n draws from N(0, 1), the same as n calls of standard_normal, without a call per draw.
void fill_standard_normal(Rng& rng, double* out, std::size_t n);

}  // namespace hone
