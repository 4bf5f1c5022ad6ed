#include "knowledge_db/embedder.hpp"

#include "knowledge_db/knowledge_db.hpp"
#include "knowledge_db/local_embedding.hpp"

namespace hone {

Embedder::Embedder(EmbeddingEndpoint endpoint, Warn warn) : endpoint_(std::move(endpoint)), warn_(std::move(warn)) {}

std::string Embedder::model() const { return uses_endpoint() ? endpoint_.model : local_embedding_model(); }

std::vector<Embedding> Embedder::embed(const std::vector<std::string>& texts) {
  if (uses_endpoint()) {
    try {
      return fetch_embeddings(endpoint_, texts);
    } catch (const EmbeddingError& e) {
      // One failure is enough: retrying every text would make an offline search crawl.
      failed_ = true;
      if (warn_) warn_(std::string(e.what()) + "; using the local embedding (" + local_embedding_model() + ") instead");
    }
  }
  std::vector<Embedding> out;
  for (const auto& t : texts) out.push_back(local_embedding(t));
  return out;
}

Embedding Embedder::embed(const std::string& text) { return embed(std::vector<std::string>{text}).front(); }

int embed_missing_lessons(KnowledgeDb& db, Embedder& embedder) {
  auto missing = db.lessons_without_vector(embedder.model());
  if (missing.empty()) return 0;
  std::vector<std::string> texts;
  for (const auto& l : missing) texts.push_back(lesson_text(l));
  auto vectors = embedder.embed(texts);
  for (std::size_t i = 0; i < missing.size(); ++i) db.put_lesson_vector(missing[i].id, vectors[i]);
  return static_cast<int>(missing.size());
}

}  // namespace hone
