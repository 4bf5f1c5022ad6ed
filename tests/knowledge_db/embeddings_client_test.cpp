// The embeddings client against a small OpenAI-compatible server (cpp-httplib) that answers
// with deterministic vectors: one dimension per concept word, counting its occurrences.
#include <doctest/doctest.h>

#include <httplib.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "knowledge_db/embedder.hpp"
#include "knowledge_db/local_embedding.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "support/scoped_env.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

const std::vector<std::string> kConcepts = {"gemv", "rmsnorm", "silu", "gdn", "split", "warp", "vector", "shared"};
const std::string kKey = "sk-test-0123456789abcdef";

std::vector<float> concept_vector(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<float> v;
  for (const auto& word : kConcepts) {
    float n = 0.01f;  // never all zero
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) n += 1;
    v.push_back(n);
  }
  return v;
}

struct FakeEmbeddings {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::mutex mutex;
  std::vector<nlohmann::json> requests;
  std::vector<std::string> authorizations;
  std::atomic<int> fail_status{0};     // answer with this HTTP status instead
  std::atomic<bool> garbage{false};    // answer 200 with something that is not embeddings

  FakeEmbeddings() {
    server.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
      auto body = nlohmann::json::parse(req.body, nullptr, false);
      {
        std::lock_guard lock(mutex);
        requests.push_back(body);
        authorizations.push_back(req.get_header_value("Authorization"));
      }
      if (fail_status) {
        res.status = fail_status;
        res.set_content(R"({"error": {"message": "the model is overloaded"}})", "application/json");
        return;
      }
      if (garbage) {
        res.set_content("<html>gateway</html>", "text/html");
        return;
      }
      nlohmann::json data = nlohmann::json::array();
      const auto& input = body["input"];
      // Answer in reverse order: the client must place vectors by "index".
      for (std::size_t i = input.size(); i-- > 0;)
        data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", concept_vector(input[i])}});
      res.set_content(nlohmann::json{{"object", "list"}, {"data", data}, {"model", body["model"]}}.dump(),
                      "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  ~FakeEmbeddings() {
    for (int i = 0; i < 200 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    server.stop();
    thread.join();
  }

  EmbeddingEndpoint endpoint() const {
    EmbeddingEndpoint e;
    e.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    e.api_key = kKey;
    e.model = "fake-embed-1";
    e.timeout_s = 10;
    return e;
  }
  std::size_t request_count() {
    std::lock_guard lock(mutex);
    return requests.size();
  }
};

bool file_contains(const std::filesystem::path& file, const std::string& needle) {
  return std::filesystem::exists(file) && test::read_bytes(file).find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("embeddings: the client sends the model and the inputs, and the key only as a bearer token") {
  FakeEmbeddings server;
  auto vectors = fetch_embeddings(server.endpoint(), {"gemv split-K on sm_80", "rmsnorm with vectorized loads"});
  REQUIRE(vectors.size() == 2);
  CHECK(vectors[0].model == "fake-embed-1");
  CHECK(vectors[0].values == concept_vector("gemv split-K on sm_80"));
  CHECK(vectors[1].values == concept_vector("rmsnorm with vectorized loads"));
  REQUIRE(server.request_count() == 1);
  CHECK(server.requests[0]["model"] == "fake-embed-1");
  CHECK(server.requests[0]["input"] == nlohmann::json{"gemv split-K on sm_80", "rmsnorm with vectorized loads"});
  CHECK(server.authorizations[0] == "Bearer " + kKey);
  CHECK(server.requests[0].dump().find(kKey) == std::string::npos);
}

TEST_CASE("embeddings: lessons keep the endpoint's vectors under its model name, and never the key") {
  FakeEmbeddings server;
  test::TempDir dir;
  auto file = dir / "hone.db";
  std::vector<std::string> warnings;
  Embedder embedder(server.endpoint(), [&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(embedder.uses_endpoint());
  CHECK(embedder.model() == "fake-embed-1");
  {
    KnowledgeDb db(file);
    LessonRecord gemv;
    gemv.situation = "gemv with N<=1024 on sm_80";
    gemv.action = "split K by 4";
    db.add_lesson(gemv, {embedder.embed(lesson_text(gemv))});
    // Added without the endpoint, then given its vector.
    LessonRecord norm;
    norm.situation = "rmsnorm at hidden=4096";
    norm.action = "VEC=8, 16-byte loads";
    db.add_lesson(norm);
    CHECK(db.lessons_without_vector("fake-embed-1").size() == 1);
    CHECK(embed_missing_lessons(db, embedder) == 1);
    CHECK(db.lessons_without_vector("fake-embed-1").empty());

    LessonQuery q;
    q.text = "which rmsnorm configuration";
    q.ranking = LessonRanking::vector;
    auto hits = db.search_lessons(q, embedder.embed(q.text));
    REQUIRE_FALSE(hits.empty());
    CHECK(hits[0].lesson.id == norm.id);
  }
  SqliteConnection raw(file);
  CHECK(raw.query_int("SELECT count(*) FROM lesson_vectors WHERE model = 'fake-embed-1' AND dim = 8") == 2);
  CHECK(raw.query_int("SELECT count(*) FROM lesson_vectors WHERE model = '" + local_embedding_model() + "'") == 2);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    CAPTURE(suffix);
    CHECK_FALSE(file_contains(file.string() + suffix, kKey));
  }
  CHECK(warnings.empty());
}

TEST_CASE("embeddings: a failing endpoint is reported without the key and the local embedding takes over") {
  FakeEmbeddings server;
  EmbeddingEndpoint e = server.endpoint();
  std::string expected_prefix = "embeddings endpoint " + e.url() + ": ";
  SUBCASE("an HTTP error") {
    server.fail_status = 500;
    expected_prefix += "HTTP 500: ";
  }
  SUBCASE("an answer that is not embeddings") { server.garbage = true; }
  SUBCASE("nobody listening") {
    e.base_url = "http://127.0.0.1:1/v1";
    expected_prefix = "embeddings endpoint http://127.0.0.1:1/v1/embeddings: ";
  }
  std::string error;
  try {
    fetch_embeddings(e, {"gemv"});
  } catch (const EmbeddingError& x) {
    error = x.what();
  }
  CHECK_MESSAGE(error.rfind(expected_prefix, 0) == 0, error);
  CHECK(error.find(kKey) == std::string::npos);

  std::vector<std::string> warnings;
  Embedder embedder(e, [&](const std::string& w) { warnings.push_back(w); });
  auto v = embedder.embed("gemv split-K");
  CHECK(v.model == local_embedding_model());
  CHECK(v.values == local_embedding("gemv split-K").values);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].rfind(expected_prefix, 0) == 0);
  CHECK(warnings[0].find("using the local embedding") != std::string::npos);
  CHECK_FALSE(embedder.uses_endpoint());
  // Once failed, it does not keep knocking.
  const auto asked = server.request_count();
  embedder.embed("rmsnorm");
  CHECK(server.request_count() == asked);
  CHECK(warnings.size() == 1);
}

TEST_CASE("embeddings: the endpoint URL follows the SDKs, and comes from flags before the environment") {
  EmbeddingEndpoint e;
  e.base_url = "https://api.openai.com/v1";
  CHECK(e.url() == "https://api.openai.com/v1/embeddings");
  e.base_url = "http://127.0.0.1:8000/";
  CHECK(e.url() == "http://127.0.0.1:8000/v1/embeddings");
  e.base_url = "http://gpu-box:8000/openai/v1/";
  CHECK(e.url() == "http://gpu-box:8000/openai/v1/embeddings");

  test::ScopedEnv url("OPENAI_BASE_URL", "http://env-host/v1");
  test::ScopedEnv key("OPENAI_API_KEY", "sk-env");
  test::ScopedEnv model("HONE_EMBEDDING_MODEL", nullptr);
  auto from_env = embedding_endpoint("", "", "");
  CHECK(from_env.base_url == "http://env-host/v1");
  CHECK(from_env.api_key == "sk-env");
  CHECK(from_env.model == "text-embedding-3-small");
  auto from_flags = embedding_endpoint("http://flag-host", "sk-flag", "bge-small");
  CHECK(from_flags.base_url == "http://flag-host");
  CHECK(from_flags.api_key == "sk-flag");
  CHECK(from_flags.model == "bge-small");

  test::ScopedEnv no_url("OPENAI_BASE_URL", nullptr);
  // A key alone configures nothing: lessons are not sent anywhere unless a URL says where.
  CHECK_FALSE(embedding_endpoint("", "", "").configured());
}
