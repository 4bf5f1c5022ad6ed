#include "tuner/llm/llm_budget.hpp"

namespace hone {

std::string LlmSpending::exhausted(std::size_t max_requests, std::int64_t max_tokens) const {
  std::lock_guard lock(mutex_);
  if (requests_ >= max_requests)
    return "the job's cap of " + std::to_string(max_requests) + " LLM requests is reached";
  if (tokens_ >= max_tokens)
    return "the job's cap of " + std::to_string(max_tokens) + " LLM tokens is reached (" + std::to_string(tokens_) +
           " spent)";
  return "";
}

void LlmSpending::spend(int requests, std::int64_t tokens) {
  std::lock_guard lock(mutex_);
  requests_ += static_cast<std::size_t>(requests > 0 ? requests : 0);
  tokens_ += tokens > 0 ? tokens : 0;
}

std::size_t LlmSpending::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::int64_t LlmSpending::tokens() const {
  std::lock_guard lock(mutex_);
  return tokens_;
}

bool LlmSpending::first_to_notice() {
  std::lock_guard lock(mutex_);
  const bool first = !noticed_;
  noticed_ = true;
  return first;
}

}  // namespace hone
