#pragma once
// An embedding that needs no network and no model file: hashed word unigrams and bigrams plus
// character 3- to 5-grams of each word, L2-normalised. It catches what keyword search misses
// when the words differ in form ("vectorised" / "vectorized", "rms norm" / "rmsnorm",
// "spilling" / "spills"), not in meaning; an embeddings endpoint does better on true synonyms.
#include <string>
#include <string_view>

#include "knowledge_db/embedding.hpp"

namespace hone {

inline constexpr int kLocalEmbeddingDim = 512;

/// The model name stored with local vectors; it changes whenever the features do, so vectors
/// from an older hashing are never compared with new ones.
const std::string& local_embedding_model();

Embedding local_embedding(std::string_view text);

}  // namespace hone
