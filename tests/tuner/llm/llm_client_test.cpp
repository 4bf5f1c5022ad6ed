// The chat completions client against the scripted server: retries and their waits (recorded,
// not slept), Retry-After, timeouts, bodies cut short, errors that are not retried, and the key.
#include <doctest/doctest.h>

#include "support/scripted_llm_server.hpp"
#include "tuner/llm/llm_client.hpp"

using namespace hone;
using hone::test::ScriptedLlmServer;
using hone::test::ScriptedReply;

namespace {

const std::string kKey = "sk-client-test-5f0c1d2e3a4b";

struct Waits {
  std::vector<double> seconds;
  BackoffSleep sleep() {
    return [this](double s) { seconds.push_back(s); };
  }
};

LlmEndpoint endpoint(const ScriptedLlmServer& server) {
  LlmEndpoint e;
  e.base_url = server.base_url();
  e.api_key = kKey;
  e.model = "scripted-model";
  e.timeout_s = 2;
  e.retries = 3;
  e.backoff_s = 1;
  e.max_backoff_s = 30;
  return e;
}

const std::vector<ChatMessage> kMessages = {{"system", "be brief"}, {"user", "write a kernel"}};

}  // namespace

TEST_CASE("llm client: a reply carries content, finish reason, usage and the request as the API expects it") {
  ScriptedLlmServer server({ScriptedReply::text("hello")});
  Waits waits;
  const ChatReply r = chat_completion(endpoint(server), kMessages, waits.sleep());
  CHECK(r.content == "hello");
  CHECK(r.finish_reason == "stop");
  CHECK_FALSE(r.cut_off());
  CHECK(r.usage.prompt_tokens == 120);
  CHECK(r.usage.completion_tokens == 80);
  CHECK(r.requests == 1);
  CHECK(waits.seconds.empty());
  const auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].authorization == "Bearer " + kKey);
  CHECK(seen[0].body["model"] == "scripted-model");
  CHECK(seen[0].body["stream"] == false);
  CHECK(seen[0].body["messages"].size() == 2);
  CHECK(seen[0].body["messages"][1]["content"] == "write a kernel");
}

TEST_CASE("llm client: 429 waits as long as Retry-After says, 5xx backs off exponentially") {
  ScriptedLlmServer server({ScriptedReply::http_error(429, "7"), ScriptedReply::http_error(503),
                            ScriptedReply::http_error(500), ScriptedReply::text("finally")});
  Waits waits;
  const ChatReply r = chat_completion(endpoint(server), kMessages, waits.sleep());
  CHECK(r.content == "finally");
  CHECK(r.requests == 4);
  // Retry-After first; then the backoff of the second and third retry (1 s doubling).
  REQUIRE(waits.seconds.size() == 3);
  CHECK(waits.seconds[0] == doctest::Approx(7));
  CHECK(waits.seconds[1] == doctest::Approx(2));
  CHECK(waits.seconds[2] == doctest::Approx(4));
}

TEST_CASE("llm client: a Retry-After longer than the cap waits only the cap") {
  ScriptedLlmServer server({ScriptedReply::http_error(429, "3600"), ScriptedReply::text("ok")});
  Waits waits;
  chat_completion(endpoint(server), kMessages, waits.sleep());
  REQUIRE(waits.seconds.size() == 1);
  CHECK(waits.seconds[0] == doctest::Approx(30));
}

TEST_CASE("llm client: a reply slower than the timeout is abandoned and asked again") {
  ScriptedLlmServer server({ScriptedReply::slow(1.5, ScriptedReply::text("too late")), ScriptedReply::text("in time")});
  LlmEndpoint e = endpoint(server);
  e.timeout_s = 0.4;
  Waits waits;
  const auto start = std::chrono::steady_clock::now();
  const ChatReply r = chat_completion(e, kMessages, waits.sleep());
  CHECK(r.content == "in time");
  CHECK(r.requests == 2);
  CHECK(waits.seconds.size() == 1);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1400));
}

TEST_CASE("llm client: a body cut short on the wire, or one that is not JSON, is asked for again") {
  ScriptedLlmServer server({ScriptedReply::cut(ScriptedReply::text("half of this is lost")),
                            ScriptedReply::raw("{\"choices\": [{\"message\": {\"content\": \"trunc"),
                            ScriptedReply::text("whole")});
  Waits waits;
  const ChatReply r = chat_completion(endpoint(server), kMessages, waits.sleep());
  CHECK(r.content == "whole");
  CHECK(r.requests == 3);
  CHECK(waits.seconds.size() == 2);
}

TEST_CASE("llm client: when the retries run out the error says why, counts the requests and is retriable") {
  ScriptedLlmServer server({ScriptedReply::http_error(502), ScriptedReply::http_error(502), ScriptedReply::http_error(502),
                            ScriptedReply::http_error(502)});
  Waits waits;
  try {
    chat_completion(endpoint(server), kMessages, waits.sleep());
    FAIL("expected LlmError");
  } catch (const LlmError& e) {
    CHECK(e.requests == 4);
    CHECK(e.retriable);
    CHECK(std::string(e.what()).find("HTTP 502") != std::string::npos);
    CHECK(std::string(e.what()).find("gave up after 4 requests") != std::string::npos);
  }
  CHECK(waits.seconds.size() == 3);
}

TEST_CASE("llm client: 401 and 404 are not retried, and no error message carries the key") {
  for (int status : {401, 404}) {
    CAPTURE(status);
    ScriptedReply r = ScriptedReply::http_error(status);
    // A server that echoes the key back must not get it into hone's messages.
    r.raw_body = "{\"error\": \"invalid key " + kKey + "\"}";
    ScriptedLlmServer server({r, ScriptedReply::text("never asked")});
    Waits waits;
    try {
      chat_completion(endpoint(server), kMessages, waits.sleep());
      FAIL("expected LlmError");
    } catch (const LlmError& e) {
      CHECK(e.requests == 1);
      CHECK_FALSE(e.retriable);
      CHECK(std::string(e.what()).find("HTTP " + std::to_string(status)) != std::string::npos);
      CHECK(std::string(e.what()).find(kKey) == std::string::npos);
    }
    CHECK(server.left() == 1);
    CHECK(waits.seconds.empty());
  }
}

TEST_CASE("llm client: a reply stopped at the token limit says so, and missing usage is estimated") {
  ScriptedLlmServer server({ScriptedReply::raw(
      R"({"choices": [{"message": {"role": "assistant", "content": "{\"entry\": \"k\", \"sour"}, "finish_reason": "length"}]})")});
  Waits waits;
  const ChatReply r = chat_completion(endpoint(server), kMessages, waits.sleep());
  CHECK(r.cut_off());
  CHECK(r.content == "{\"entry\": \"k\", \"sour");
  CHECK(r.usage.prompt_tokens > 0);
  CHECK(r.usage.completion_tokens > 0);
}

TEST_CASE("llm client: an answer without choices is an error that retrying would not fix") {
  ScriptedLlmServer server({ScriptedReply::raw(R"({"object": "list", "data": []})")});
  Waits waits;
  CHECK_THROWS_WITH_AS(chat_completion(endpoint(server), kMessages, waits.sleep()),
                       doctest::Contains("no choices[0].message"), LlmError);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("llm client: the URL takes the SDKs' base (with /v1) or a bare host") {
  LlmEndpoint e;
  e.base_url = "http://127.0.0.1:8000/v1/";
  CHECK(e.url() == "http://127.0.0.1:8000/v1/chat/completions");
  e.base_url = "http://localhost:11434";
  CHECK(e.url() == "http://localhost:11434/v1/chat/completions");
}
