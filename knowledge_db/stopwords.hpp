#pragma once
// English words too common to tell lessons apart. Keyword search drops them from the query
// (BM25 would otherwise rank a lesson by how often it says "for"), and the local embedding
// leaves them out (they would make every lesson look like every other).
#include <string_view>

namespace hone {

/// Whether the lower-case word is a stopword.
bool is_stopword(std::string_view word);

}  // namespace hone
