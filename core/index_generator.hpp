#pragma once
// Index inputs: the structured integer tensors of paged attention, state pools and MoE (block
// tables, sequence lengths, positions, slot indices, expert ids), each drawn by a generator kind
// a spec names in an argument's `init`. A generator has a typical mode and adversarial modes (the
// hidden tests draw each of them); one that addresses rows of another buffer also says which
// items its values address, so that the rest of that buffer can be poisoned or checked untouched
// (AddressedBy in core/op_spec.hpp). The quantized weight formats are drawn the same way: their
// codes, scales and zero points hang together in ways no per-element distribution expresses
// (an FP8 block's largest code is 448 / its scale, an int32 holds eight nibbles). One file per
// kind in core/index/, listed in core/index_generator.cpp.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/host_tensor.hpp"

namespace hone {

/// The mode every visible check draws in.
inline const std::string kTypicalMode = "typical";

/// A parameter of a generator: an expression of the shape symbols, or (input) the name of
/// another argument whose drawn values it depends on.
struct IndexParam {
  std::string name;
  bool input = false;
  std::string default_value;  // "" : required; else the expression used when the spec omits it
};

/// One draw of an index argument.
struct IndexCall {
  std::vector<std::int64_t> extents;              // the argument's dims at this shape
  std::map<std::string, std::int64_t> params;     // every expression parameter, evaluated
  std::map<std::string, const HostTensor*> inputs; // every input parameter, already drawn
  std::string mode = kTypicalMode;
  const HostTensor* previous = nullptr;           // this argument in the previous call of a chain
  Rng* rng = nullptr;

  std::int64_t param(const std::string& name) const { return params.at(name); }
  const HostTensor& input(const std::string& name) const { return *inputs.at(name); }
  std::uint64_t below(std::uint64_t n) const { return n ? rng->next() % n : 0; }
};

struct IndexGenerator {
  std::string kind;
  std::string summary;                 // one line, for the README and errors
  std::size_t rank = 1;                // dims the argument must have
  std::vector<IndexParam> params;
  std::vector<std::string> modes;      // adversarial modes (the typical one is not listed)
  /// Fills `out` (the argument's dtype and element count) with values drawn for `call`. Throws
  /// InputError when the parameters cannot hold a valid draw (a pool smaller than the batch).
  void (*generate)(const IndexCall& call, HostTensor& out) = nullptr;
  /// The items `values` address (page tokens, slots, experts), for AddressedBy; null when the
  /// kind addresses nothing.
  void (*items)(const IndexCall& call, const HostTensor& values, std::vector<std::int64_t>& out) = nullptr;
  /// Whether adversarial `mode` means something at these parameters (expert ids from other GPUs
  /// only where the spec allows them); null: every mode does.
  bool (*offers)(const std::string& mode, const std::map<std::string, std::int64_t>& params) = nullptr;
  std::vector<DType> dtypes = {};  // the element types it fills; empty: any integer type
};

/// Every generator kind, sorted by kind.
const std::vector<const IndexGenerator*>& index_generators();
/// The generator of `kind`, or null.
const IndexGenerator* find_index_generator(const std::string& kind);

}  // namespace hone
