#pragma once
// A flag's comma-separated list of positive integers ("1,2,4"), as --budget and --buckets take it.
#include <cstdint>
#include <string>
#include <vector>

namespace hone::cli {

/// Throws InputError naming `flag` for an empty list or an item that is not a positive integer.
std::vector<std::int64_t> positive_integers(const std::string& text, const std::string& flag);

}  // namespace hone::cli
