#include "knowledge_db/local_embedding.hpp"

#include "knowledge_db/stopwords.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hone {

namespace {

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string w;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      w += static_cast<char>(std::tolower(c));
    } else if (!w.empty()) {
      words.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(std::move(w));
  std::vector<std::string> kept;
  for (auto& x : words)
    if (!is_stopword(x)) kept.push_back(std::move(x));
  return kept;
}

// FNV-1a, 64-bit, with a salt per feature kind so a word and an n-gram of the same letters differ.
std::uint64_t fnv1a(std::string_view s, char salt) {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  mix(static_cast<unsigned char>(salt));
  for (char c : s) mix(static_cast<unsigned char>(c));
  return h;
}

void add(std::vector<float>& v, std::string_view feature, char salt, double weight) {
  std::uint64_t h = fnv1a(feature, salt);
  // The sign from another bit keeps collisions from adding up in one direction.
  const double sign = (h >> 63) ? -1.0 : 1.0;
  v[h % v.size()] += static_cast<float>(sign * weight);
}

}  // namespace

const std::string& local_embedding_model() {
  static const std::string name = "hone-local-ngram-v1/" + std::to_string(kLocalEmbeddingDim);
  return name;
}

Embedding local_embedding(std::string_view text) {
  std::vector<float> v(kLocalEmbeddingDim, 0.0f);
  const auto words = words_of(text);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    add(v, w, 'w', 1.0);
    if (i + 1 < words.size()) add(v, w + " " + words[i + 1], 'b', 0.5);
    // Character n-grams of the word with its boundaries; their weights sum to about one word's,
    // so a long word does not outweigh a short one.
    const std::string bounded = "<" + w + ">";
    std::vector<std::string_view> grams;
    for (std::size_t n = 3; n <= 5; ++n)
      for (std::size_t s = 0; s + n <= bounded.size(); ++s) grams.push_back(std::string_view(bounded).substr(s, n));
    if (grams.empty()) continue;
    const double weight = 1.5 / std::sqrt(static_cast<double>(grams.size()));
    for (auto g : grams) add(v, g, 'c', weight);
  }
  l2_normalise(v);
  return {local_embedding_model(), std::move(v)};
}

}  // namespace hone
