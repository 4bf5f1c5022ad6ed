#pragma once
// A client for an OpenAI-compatible embeddings endpoint (POST {base}/embeddings, as the OpenAI
// SDKs call it), over libcurl. The API key is sent in the Authorization header only: it is never
// stored, and error messages never contain it.
#include <stdexcept>
#include <string>
#include <vector>

#include "knowledge_db/embedding.hpp"

namespace hone {

struct EmbeddingEndpoint {
  std::string base_url;                          // "https://api.openai.com/v1", "http://127.0.0.1:8000"
  std::string api_key;                           // may be empty for local servers
  std::string model = "text-embedding-3-small";
  long timeout_s = 30;

  bool configured() const { return !base_url.empty(); }
  /// The embeddings URL: base + "/embeddings" when the base has a path (the SDKs' convention,
  /// ".../v1"), base + "/v1/embeddings" for a bare host.
  std::string url() const;
};

/// The endpoint from flags, each falling back to its environment variable: OPENAI_BASE_URL,
/// OPENAI_API_KEY, HONE_EMBEDDING_MODEL. Without a base URL none is configured: a key alone
/// does not send lessons to a third party.
EmbeddingEndpoint embedding_endpoint(const std::string& url_flag, const std::string& key_flag,
                                     const std::string& model_flag);

/// The endpoint failed: unreachable, an HTTP error, or an answer that is not embeddings. The
/// message names the URL and the problem.
struct EmbeddingError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One vector per text, in order, each labelled with the endpoint's model name as configured
/// (the name the vectors are stored and compared under). Throws EmbeddingError.
std::vector<Embedding> fetch_embeddings(const EmbeddingEndpoint& endpoint, const std::vector<std::string>& texts);

}  // namespace hone
