#pragma once
// Where vectors come from: an OpenAI-compatible endpoint when one is configured, the local
// n-gram embedding otherwise, and also when the endpoint fails (after one warning, so a search
// still works offline).
#include <functional>
#include <string>
#include <vector>

#include "knowledge_db/embedding.hpp"
#include "knowledge_db/embeddings_client.hpp"

namespace hone {

class KnowledgeDb;

class Embedder {
 public:
  using Warn = std::function<void(const std::string& message)>;
  explicit Embedder(EmbeddingEndpoint endpoint = {}, Warn warn = {});

  /// One vector per text, all of one model.
  std::vector<Embedding> embed(const std::vector<std::string>& texts);
  Embedding embed(const std::string& text);
  /// Whether vectors come from the endpoint: configured, and not failed so far.
  bool uses_endpoint() const { return endpoint_.configured() && !failed_; }
  /// The model vectors come from now.
  std::string model() const;

 private:
  EmbeddingEndpoint endpoint_;
  Warn warn_;
  bool failed_ = false;
};

/// Gives every lesson without a vector of the embedder's model one (lessons added offline, or
/// before an endpoint was configured). Returns how many it embedded.
int embed_missing_lessons(KnowledgeDb& db, Embedder& embedder);

}  // namespace hone
