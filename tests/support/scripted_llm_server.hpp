#pragma once
// A local OpenAI-compatible chat completions server for tests (cpp-httplib, 127.0.0.1, a free
// port), scripted per request: each POST to /v1/chat/completions takes the next reply of the
// script, in order. A reply may be a chat completion with given content, an HTTP error (with
// Retry-After), a slow answer (past the client's timeout), a body cut short on the wire, or any
// raw body. Every request is recorded with its Authorization header. When the script runs out the
// server answers 400, which the client does not retry.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::test {

struct ScriptedReply {
  int status = 200;
  std::string content;                    // the assistant message (status 200, no raw body)
  std::string finish_reason = "stop";
  std::optional<std::string> raw_body;    // sent as is instead of a chat completion
  std::string retry_after;                // Retry-After header, "" for none
  double delay_s = 0;                     // wait this long before answering
  bool cut_body = false;                  // promise the whole body, send half, drop the connection
  std::int64_t prompt_tokens = 120, completion_tokens = 80;

  /// A reply whose content is this JSON object (the format hone's prompt asks for).
  static ScriptedReply kernel(const nlohmann::json& reply) {
    ScriptedReply r;
    r.content = reply.dump(2);
    return r;
  }
  static ScriptedReply text(std::string content, std::string finish_reason = "stop") {
    ScriptedReply r;
    r.content = std::move(content);
    r.finish_reason = std::move(finish_reason);
    return r;
  }
  static ScriptedReply http_error(int status, std::string retry_after = "") {
    ScriptedReply r;
    r.status = status;
    r.raw_body = R"({"error": {"message": "scripted failure"}})";
    r.retry_after = std::move(retry_after);
    return r;
  }
  static ScriptedReply raw(std::string body) {
    ScriptedReply r;
    r.raw_body = std::move(body);
    return r;
  }
  static ScriptedReply slow(double seconds, ScriptedReply then) {
    then.delay_s = seconds;
    return then;
  }
  static ScriptedReply cut(ScriptedReply then) {
    then.cut_body = true;
    return then;
  }
};

/// The JSON object hone's prompt asks for: entry, source and launch rule (grid, block).
inline nlohmann::json kernel_reply(const std::string& entry, const std::string& source, std::vector<std::string> grid,
                                   std::vector<std::string> block) {
  return {{"entry", entry}, {"source", source}, {"launch", {{"grid", grid}, {"block", block}}}};
}

class ScriptedLlmServer {
 public:
  struct Seen {
    nlohmann::json body;          // the request as sent (model, messages, max_tokens, ...)
    std::string authorization;    // the Authorization header, "" when none
  };

  explicit ScriptedLlmServer(std::vector<ScriptedReply> script = {}) : script_(script.begin(), script.end()) {
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) { answer(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("scripted LLM server: cannot bind a port on 127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~ScriptedLlmServer() {
    stopping_ = true;
    server_.stop();
    thread_.join();
  }
  ScriptedLlmServer(const ScriptedLlmServer&) = delete;
  ScriptedLlmServer& operator=(const ScriptedLlmServer&) = delete;

  /// What a client takes as its base URL (the SDKs' form, ending in /v1).
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

  void push(ScriptedReply r) {
    std::lock_guard lock(mutex_);
    script_.push_back(std::move(r));
  }
  std::vector<Seen> requests() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }
  /// The user message of request i (the prompt's variable part).
  std::string user_prompt(std::size_t i) const {
    const auto all = requests();
    if (i >= all.size()) return "";
    for (const auto& m : all[i].body["messages"])
      if (m.value("role", "") == "user") return m.value("content", "");
    return "";
  }
  std::size_t left() const {
    std::lock_guard lock(mutex_);
    return script_.size();
  }

 private:
  void answer(const httplib::Request& req, httplib::Response& res) {
    ScriptedReply r;
    bool scripted = false;
    {
      std::lock_guard lock(mutex_);
      seen_.push_back({nlohmann::json::parse(req.body, nullptr, false), req.get_header_value("Authorization")});
      if (!script_.empty()) {
        r = std::move(script_.front());
        script_.pop_front();
        scripted = true;
      }
    }
    if (!scripted) {
      res.status = 400;
      res.set_content(R"({"error": {"message": "the test's script has no more replies"}})", "application/json");
      return;
    }
    // Wait in slices, so that stopping the server does not wait for a long delay.
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(r.delay_s);
    while (!stopping_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));

    std::string body = r.raw_body ? *r.raw_body
                                  : nlohmann::json{{"id", "chatcmpl-test"},
                                                   {"object", "chat.completion"},
                                                   {"model", "scripted"},
                                                   {"choices",
                                                    {{{"index", 0},
                                                      {"message", {{"role", "assistant"}, {"content", r.content}}},
                                                      {"finish_reason", r.finish_reason}}}},
                                                   {"usage",
                                                    {{"prompt_tokens", r.prompt_tokens},
                                                     {"completion_tokens", r.completion_tokens},
                                                     {"total_tokens", r.prompt_tokens + r.completion_tokens}}}}
                                        .dump();
    res.status = r.status;
    if (!r.retry_after.empty()) res.set_header("Retry-After", r.retry_after);
    if (!r.cut_body) {
      res.set_content(body, "application/json");
      return;
    }
    // Content-Length says the whole body; half of it is written and the connection dropped.
    const std::size_t full = body.size();
    res.set_content_provider(full, "application/json",
                             [body = std::move(body)](std::size_t offset, std::size_t, httplib::DataSink& sink) {
                               if (offset > 0) return false;
                               sink.write(body.data(), body.size() / 2);
                               return true;
                             });
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::deque<ScriptedReply> script_;
  std::vector<Seen> seen_;
};

}  // namespace hone::test
