#pragma once
// Which elements of an output the element-wise checks (tolerance, kept bits, error bias) look at.
// An in-out pool addressed by an index input (the states of a slot pool) is judged element by
// element only where the index addresses it: everywhere else it must come back bit for bit as it
// went in, which validator/untouched_check.hpp proves first. Looking at the rest again would only
// cost time (a 64-slot pool where batch 1 addresses one slot), and would dilute the unbiased-error
// check with elements that are exact by construction.
#include <cstddef>
#include <vector>

#include "core/index_inputs.hpp"

namespace hone {

/// Sorted, disjoint element ranges; empty means every element.
using CheckedElements = std::vector<ElementRange>;

/// Calls f(i) for each element index i below `count` that `only` covers.
template <class F>
void for_each_checked(std::size_t count, const CheckedElements& only, F&& f) {
  if (only.empty()) {
    for (std::size_t i = 0; i < count; ++i) f(i);
    return;
  }
  for (const ElementRange& r : only)
    for (auto i = static_cast<std::size_t>(r.begin); i < static_cast<std::size_t>(r.end) && i < count; ++i) f(i);
}

}  // namespace hone
