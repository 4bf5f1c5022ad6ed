#include "knowledge_db/embedding.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace hone {

static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559, "vectors are stored as IEEE float32");

double cosine_similarity(const Embedding& a, const Embedding& b) {
  if (a.model != b.model)
    throw std::invalid_argument("cannot compare embeddings of different models ('" + a.model + "', '" + b.model + "')");
  if (a.values.size() != b.values.size())
    throw std::invalid_argument("cannot compare embeddings of " + std::to_string(a.values.size()) + " and " +
                                std::to_string(b.values.size()) + " dimensions");
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    dot += double(a.values[i]) * b.values[i];
    na += double(a.values[i]) * a.values[i];
    nb += double(b.values[i]) * b.values[i];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0.0;
}

void l2_normalise(std::vector<float>& values) {
  double n = 0;
  for (float v : values) n += double(v) * v;
  if (n <= 0) return;
  const double inv = 1.0 / std::sqrt(n);
  for (float& v : values) v = static_cast<float>(v * inv);
}

std::string vector_to_blob(const std::vector<float>& values) {
  std::string blob(values.size() * 4, '\0');
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t bits = std::bit_cast<std::uint32_t>(values[i]);
    for (int b = 0; b < 4; ++b) blob[i * 4 + b] = static_cast<char>((bits >> (8 * b)) & 0xff);
  }
  return blob;
}

std::vector<float> vector_from_blob(std::string_view blob) {
  if (blob.size() % 4) throw std::invalid_argument("a vector blob of " + std::to_string(blob.size()) + " bytes is not float32");
  std::vector<float> values(blob.size() / 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= std::uint32_t(static_cast<unsigned char>(blob[i * 4 + b])) << (8 * b);
    values[i] = std::bit_cast<float>(bits);
  }
  return values;
}

}  // namespace hone
