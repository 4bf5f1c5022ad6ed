#pragma once
// A client for OpenAI-compatible chat completions (POST {base}/chat/completions), as served by
// vLLM, SGLang, Ollama, llama.cpp's server and the hosted APIs, over libcurl.
//
// Transient failures are retried with exponential backoff: HTTP 429 and 5xx (after the server's
// Retry-After when it sends one, capped), timeouts, dropped connections, and bodies cut short or
// not JSON. Other HTTP errors (400, 401, 404) are not retried: asking again would not help. The
// key is sent in the Authorization header only; no message, log or record contains it.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hone {

struct LlmEndpoint {
  std::string base_url;                 // "https://api.openai.com/v1", "http://127.0.0.1:8000"
  std::string api_key;                  // may be empty for local servers
  std::string model;
  double timeout_s = 180;               // one request, connection included
  double connect_timeout_s = 10;
  int retries = 4;
  double backoff_s = 1;
  double max_backoff_s = 60;
  std::int64_t max_reply_tokens = 8192;
  double temperature = 0.2;

  /// base + "/chat/completions" when the base has a path (the SDKs' ".../v1"), base +
  /// "/v1/chat/completions" for a bare host.
  std::string url() const;
};

struct ChatMessage {
  std::string role;     // "system" | "user" | "assistant"
  std::string content;
};

struct ChatUsage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t total() const { return prompt_tokens + completion_tokens; }
};

struct ChatReply {
  std::string content;
  std::string finish_reason;   // "stop"; "length" when the reply hit max_reply_tokens
  ChatUsage usage;
  int requests = 0;            // HTTP requests made, retries included
  double latency_ms = 0;       // all of them, backoff included
  bool cut_off() const { return finish_reason == "length"; }
};

/// The request failed for good: retries used up, or an error that retrying would not fix.
struct LlmError : std::runtime_error {
  LlmError(const std::string& what, int requests, bool retriable)
      : std::runtime_error(what), requests(requests), retriable(retriable) {}
  int requests;     // HTTP requests made before giving up
  bool retriable;   // a transient failure that outlasted the retries (the next task may try again)
};

/// Waits between retries; tests may count the waits instead of sleeping.
using BackoffSleep = std::function<void(double seconds)>;

/// Sends the messages, retrying as described above. Throws LlmError.
ChatReply chat_completion(const LlmEndpoint& endpoint, const std::vector<ChatMessage>& messages,
                          const BackoffSleep& sleep = {});

}  // namespace hone
