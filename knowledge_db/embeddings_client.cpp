#include "knowledge_db/embeddings_client.hpp"

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/http_post.hpp"
#include "core/openai_url.hpp"
#include "core/outside_text.hpp"

namespace hone {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string first_of(const std::string& flag, const char* variable) { return flag.empty() ? env(variable) : flag; }

// Batches small enough for any server (OpenAI takes up to 2048 inputs).
constexpr std::size_t kBatch = 128;

std::vector<Embedding> fetch_batch(const EmbeddingEndpoint& e, const std::vector<std::string>& texts) {
  const std::string url = e.url();
  auto fail = [&](const std::string& problem) -> EmbeddingError {
    return EmbeddingError(redact("embeddings endpoint " + url + ": " + problem, e.api_key));
  };
  const std::string body = nlohmann::json{{"model", e.model}, {"input", texts}}.dump();
  const HttpExchange x = post_json({url, body, e.api_key, static_cast<double>(e.timeout_s)});
  if (x.code != CURLE_OK) throw fail(x.curl_error);
  const std::string& response = x.body;
  if (x.status != 200) throw fail("HTTP " + std::to_string(x.status) + ": " + snippet(response, 200));

  nlohmann::json j = nlohmann::json::parse(response, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array())
    throw fail("the answer is not an embeddings list: " + snippet(response, 200));
  if (j["data"].size() != texts.size())
    throw fail("asked for " + std::to_string(texts.size()) + " embeddings, got " + std::to_string(j["data"].size()));
  std::vector<Embedding> out(texts.size());
  std::vector<bool> seen(texts.size(), false);
  for (std::size_t i = 0; i < j["data"].size(); ++i) {
    const auto& item = j["data"][i];
    // "index" says which input a vector belongs to; servers need not answer in order.
    std::size_t index = item.contains("index") && item["index"].is_number_unsigned() ? item["index"].get<std::size_t>() : i;
    if (index >= texts.size() || seen[index]) throw fail("embedding " + std::to_string(i) + " has a bad index");
    seen[index] = true;
    const auto& values = item.contains("embedding") ? item["embedding"] : nlohmann::json();
    if (!values.is_array() || values.empty()) throw fail("embedding " + std::to_string(i) + " is not a list of numbers");
    Embedding& emb = out[index];
    emb.model = e.model;
    for (const auto& v : values) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) throw fail("embedding " + std::to_string(i) + " holds a non-number");
      emb.values.push_back(v.get<float>());
    }
    if (emb.values.size() != out[0].values.size() && !out[0].values.empty())
      throw fail("embeddings of different lengths in one answer");
  }
  return out;
}

}  // namespace

std::string EmbeddingEndpoint::url() const { return openai_url(base_url, "embeddings"); }

EmbeddingEndpoint embedding_endpoint(const std::string& url_flag, const std::string& key_flag,
                                     const std::string& model_flag) {
  EmbeddingEndpoint e;
  e.base_url = first_of(url_flag, "OPENAI_BASE_URL");
  e.api_key = first_of(key_flag, "OPENAI_API_KEY");
  if (auto m = first_of(model_flag, "HONE_EMBEDDING_MODEL"); !m.empty()) e.model = m;
  return e;
}

std::vector<Embedding> fetch_embeddings(const EmbeddingEndpoint& e, const std::vector<std::string>& texts) {
  std::vector<Embedding> out;
  for (std::size_t start = 0; start < texts.size(); start += kBatch) {
    std::vector<std::string> batch(texts.begin() + start, texts.begin() + std::min(texts.size(), start + kBatch));
    for (auto& v : fetch_batch(e, batch)) {
      if (!out.empty() && v.values.size() != out.front().values.size())
        throw EmbeddingError("embeddings endpoint " + e.url() + ": embeddings of different lengths");
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace hone
