#include "tuner/llm/llm_client.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/http_post.hpp"
#include "core/openai_url.hpp"
#include "core/outside_text.hpp"

namespace hone {

namespace {

// Which curl failures are worth another try: the server or the network may recover.
bool transient(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

std::int64_t estimate_tokens(std::size_t chars) { return static_cast<std::int64_t>(chars / 4 + 1); }

}  // namespace

std::string LlmEndpoint::url() const { return openai_url(base_url, "chat/completions"); }

ChatReply chat_completion(const LlmEndpoint& e, const std::vector<ChatMessage>& messages, const BackoffSleep& sleep) {
  const std::string url = e.url();
  nlohmann::json msgs = nlohmann::json::array();
  std::size_t prompt_chars = 0;
  for (const auto& m : messages) {
    msgs.push_back({{"role", m.role}, {"content", m.content}});
    prompt_chars += m.content.size();
  }
  const std::string body = nlohmann::json{{"model", e.model},
                                          {"messages", msgs},
                                          {"max_tokens", e.max_reply_tokens},
                                          {"temperature", e.temperature},
                                          {"stream", false}}
                               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const auto start = std::chrono::steady_clock::now();
  int requests = 0;
  auto fail = [&](const std::string& problem, bool retriable) {
    return LlmError(redact("LLM endpoint " + url + ": " + problem, e.api_key), requests, retriable);
  };
  for (int attempt = 0;; ++attempt) {
    ++requests;
    const HttpExchange x = post_json({url, body, e.api_key, e.timeout_s, e.connect_timeout_s});
    std::string problem;
    bool retry = false;
    std::optional<double> retry_after;
    if (x.code != CURLE_OK) {
      problem = x.curl_error;
      retry = transient(x.code);
    } else if (x.status == 429 || x.status >= 500) {
      problem = "HTTP " + std::to_string(x.status) + ": " + snippet(x.body, 300);
      retry = true;
      retry_after = x.retry_after_s;
    } else if (x.status != 200) {
      throw fail("HTTP " + std::to_string(x.status) + ": " + snippet(x.body, 300), false);
    } else {
      const nlohmann::json j = nlohmann::json::parse(x.body, nullptr, false);
      if (j.is_discarded()) {
        // A body cut short on the way (a proxy, a server restarting): another try may get it whole.
        problem = "the answer is not JSON (cut short?): " + snippet(x.body, 300);
        retry = true;
      } else {
        const nlohmann::json* choice =
            j.is_object() && j.contains("choices") && j["choices"].is_array() && !j["choices"].empty() ? &j["choices"][0]
                                                                                                       : nullptr;
        if (!choice || !choice->is_object() || !choice->contains("message") || !(*choice)["message"].is_object())
          throw fail("the answer has no choices[0].message: " + snippet(x.body, 300), false);
        ChatReply r;
        const auto& content = (*choice)["message"].value("content", nlohmann::json());
        r.content = content.is_string() ? content.get<std::string>() : "";
        const auto& finish = choice->value("finish_reason", nlohmann::json());
        r.finish_reason = finish.is_string() ? finish.get<std::string>() : "";
        const auto& usage = j.value("usage", nlohmann::json::object());
        // Some servers leave usage out; the job's token cap still needs a figure, so estimate one.
        r.usage.prompt_tokens = usage.is_object() && usage.value("prompt_tokens", nlohmann::json()).is_number_integer()
                                    ? usage["prompt_tokens"].get<std::int64_t>()
                                    : estimate_tokens(prompt_chars);
        r.usage.completion_tokens =
            usage.is_object() && usage.value("completion_tokens", nlohmann::json()).is_number_integer()
                ? usage["completion_tokens"].get<std::int64_t>()
                : estimate_tokens(r.content.size());
        r.requests = requests;
        r.latency_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        return r;
      }
    }
    if (!retry) throw fail(problem, false);
    if (attempt >= e.retries)
      throw fail(problem + " (gave up after " + std::to_string(requests) + " requests)", true);
    double wait = retry_after ? *retry_after : e.backoff_s * std::pow(2.0, attempt);
    wait = std::clamp(wait, 0.0, e.max_backoff_s);
    if (sleep) sleep(wait);
    else std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
}

}  // namespace hone
