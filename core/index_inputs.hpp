#pragma once
// Drawing a spec's index inputs (core/index_generator.hpp) and what they address: the order in
// which arguments that depend on others are drawn, resolved in one place; the elements of an
// AddressedBy buffer that the drawn indices select; the adversarial modes the hidden tests use.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/index_generator.hpp"
#include "core/op_spec.hpp"

namespace hone {

/// The mode of each index argument a draw uses: argument name -> mode (absent: typical).
using IndexModes = std::map<std::string, std::string>;

/// The positions in `args` of the index arguments, each after the arguments its input parameters
/// name; throws InputError naming `file` on a cycle or on an input parameter that names no index
/// argument.
std::vector<std::size_t> index_draw_order(const std::vector<ArgSpec>& args, const std::string& file);

/// Draws every index argument of `op` into out[i] (out is indexed as op.args), in the spec's
/// dependency order, each from its own stream of `seed`. `previous`: the previous call's inputs in
/// a chain (a slot generator brings some of its slots back), else null. Throws InputError when
/// the shape cannot hold a valid draw.
void draw_index_inputs(const OpSpec& op, const Bindings& shape, std::uint64_t seed, const IndexModes& modes,
                       const std::vector<HostTensor>* previous, std::vector<HostTensor>& out);

/// Elements [begin, end) of a buffer.
struct ElementRange {
  std::int64_t begin = 0, end = 0;
};

/// The elements of `arg` (which has addressed_by) that the index values in `host` address, sorted
/// and merged. Throws InputError when an item's elements lie outside the buffer (a spec whose
/// extent or offset does not fit its dims).
std::vector<ElementRange> addressed_ranges(const OpSpec& op, const ArgSpec& arg, const Bindings& shape,
                                           const std::vector<HostTensor>& host);

/// What the elements of an addressed buffer that no index addresses hold.
enum class AddressedRest {
  poison,        // NaN (the integer poison pattern for integers): an input no right kernel reads
  drawn_copies,  // copies of one drawn block: a state pool's other states, finite, to come back unchanged
};

/// A buffer of `n` elements of `dtype` whose `ranges` are drawn from `dist` and whose other
/// elements hold `rest`, filled as a memset or memcpy is, so that a 3 GB expert weight tensor or a
/// pool of 64 DeltaNet states costs the draw of the chosen experts' or slots' elements only. `rows`
/// as in generate_tensor.
HostTensor generate_addressed(DType dtype, std::size_t n, const InputDist& dist, Rng& rng, std::size_t rows,
                              const std::vector<ElementRange>& ranges, AddressedRest rest = AddressedRest::poison);

/// The hidden tests' index draws at `shape`: (argument, mode) for every adversarial mode of every
/// index argument that its generator offers at that shape.
std::vector<std::pair<std::string, std::string>> adversarial_index_modes(const OpSpec& op, const Bindings& shape);

}  // namespace hone
