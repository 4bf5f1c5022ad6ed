#pragma once
// What the LLM proposer has spent in one job, across all its tasks: requests (retries included)
// and tokens (prompt and completion), against the job's caps. One object per job, shared by the
// proposers of every task; a mutex keeps it right if tasks ever run at once.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace hone {

class LlmSpending {
 public:
  /// Why no further request may be made under these caps, or "" while one may.
  std::string exhausted(std::size_t max_requests, std::int64_t max_tokens) const;
  void spend(int requests, std::int64_t tokens);
  std::size_t requests() const;
  std::int64_t tokens() const;
  /// True the first time it is called: the note that the caps were reached is given once a job.
  bool first_to_notice();

 private:
  mutable std::mutex mutex_;
  std::size_t requests_ = 0;
  std::int64_t tokens_ = 0;
  bool noticed_ = false;
};

}  // namespace hone
