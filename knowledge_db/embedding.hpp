#pragma once
// An embedding: a vector and the model that made it. Vectors of different models live in
// different spaces, so they are never compared.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

struct Embedding {
  std::string model;            // "hone-local-ngram-v1/512", "text-embedding-3-small", ...
  std::vector<float> values;
};

/// Cosine similarity; throws std::invalid_argument for different models or dimensions.
double cosine_similarity(const Embedding& a, const Embedding& b);

/// Scales to unit length (a zero vector stays zero).
void l2_normalise(std::vector<float>& values);

/// The bytes stored in lesson_vectors.vector: float32, little-endian.
std::string vector_to_blob(const std::vector<float>& values);
std::vector<float> vector_from_blob(std::string_view blob);

}  // namespace hone
