#pragma once
// How a tuning job uses the LLM proposer: the endpoint (an OpenAI-compatible chat completions
// server), what each task and the whole job may spend, and how patient the client is.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tuner/llm/llm_budget.hpp"
#include "tuner/llm/llm_client.hpp"

namespace hone {

struct LlmOptions {
  std::string base_url;                    // "" : $OPENAI_BASE_URL
  std::string model;                       // "" : $HONE_LLM_MODEL
  /// The environment variable holding the API key. The key itself is never an option: a flag's
  /// value shows in `ps`, and an option would end up in logs and plans.
  std::string key_env = "OPENAI_API_KEY";
  std::size_t attempts = 6;                // per task: requests that gave no kernel, and kernels tried
  std::size_t max_requests = 200;          // per job, retries included
  std::int64_t max_tokens = 2'000'000;     // per job, prompt and completion
  std::int64_t reply_tokens = 8192;        // max_tokens of one completion
  double temperature = 0.2;
  double timeout_s = 180;                  // one request
  int retries = 4;                         // after the first request: on 429, 5xx, timeouts, cut-off bodies
  double backoff_s = 1;                    // before the first retry; doubles each time
  double max_backoff_s = 60;               // also caps a server's Retry-After
  std::size_t prompt_chars = 24000;        // the prompt's size budget (about 6000 tokens)
  std::size_t lessons = 5;                 // lessons retrieved into a prompt, at most
  std::size_t failure_notes = 6;           // notes on recent attempts in a prompt, at most
  std::size_t sweep = 4;                   // configurations tried from one reply's parameter space, at most
  bool show_prompt = false;                // print every prompt as it is sent
  BackoffSleep sleep;                      // waits between retries; empty: really sleep (tests record instead)
  /// What the job spent so far: copies of these options share it, so it spans the job's tasks.
  std::shared_ptr<LlmSpending> spent = std::make_shared<LlmSpending>();
};

/// The endpoint the options name: base URL and model from the options, else $OPENAI_BASE_URL and
/// $HONE_LLM_MODEL; the key from the variable `key_env` names (none when unset: local servers need
/// none). Throws InputError when the base URL or the model is missing, or key_env names no
/// variable.
LlmEndpoint resolve_llm_endpoint(const LlmOptions& options);

}  // namespace hone
