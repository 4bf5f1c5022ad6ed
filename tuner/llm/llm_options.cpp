#include "tuner/llm/llm_options.hpp"

#include <cstdlib>

#include "core/input_error.hpp"

namespace hone {

namespace {

std::string env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}

}  // namespace

LlmEndpoint resolve_llm_endpoint(const LlmOptions& o) {
  LlmEndpoint e;
  e.base_url = o.base_url.empty() ? env("OPENAI_BASE_URL") : o.base_url;
  e.model = o.model.empty() ? env("HONE_LLM_MODEL") : o.model;
  if (e.base_url.empty())
    throw InputError("the llm proposer needs an OpenAI-compatible endpoint: --llm-base-url URL or OPENAI_BASE_URL");
  if (e.model.empty()) throw InputError("the llm proposer needs a model: --llm-model NAME or HONE_LLM_MODEL");
  if (o.key_env.empty()) throw InputError("--llm-key-env must name an environment variable");
  e.api_key = env(o.key_env);
  e.timeout_s = o.timeout_s;
  e.retries = o.retries;
  e.backoff_s = o.backoff_s;
  e.max_backoff_s = o.max_backoff_s;
  e.max_reply_tokens = o.reply_tokens;
  e.temperature = o.temperature;
  return e;
}

}  // namespace hone
