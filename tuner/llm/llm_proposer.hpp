#pragma once
// The LLM proposer: an agent that asks an OpenAI-compatible model for kernels for one task,
// tells it what went wrong with each, and keeps what it proposes to learn.
//
// Each attempt is one request. Its prompt (llm_prompt.hpp) shows the best correct kernel so far,
// which becomes the parent of what comes back (the template winner when the template search ran
// first), the lessons retrieved for the task, and notes on the recent attempts (llm_feedback.hpp).
// A reply (llm_reply.hpp) becomes one candidate, or one per configuration of the parameter space
// it declares (at most LlmOptions::sweep); a reply that gives no kernel is an attempt spent, its
// reason noted for the next turn. budget() is the attempts per task: kernels tried plus replies
// that gave none. The job's caps on requests and tokens (LlmOptions) stop it with a note.
//
// Everything it makes is untrusted (origin "llm"): the tuner applies the source policy before
// anything compiles it, compiles it in the sandboxed compile process and runs it only in the
// worker's sandboxed child. Every attempt is stored with its prompt, reply and token usage
// (KnowledgeDb::add_llm_attempt); the API key is in none of them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/llm/llm_client.hpp"
#include "tuner/llm/llm_options.hpp"
#include "tuner/llm/llm_reply.hpp"
#include "tuner/proposer.hpp"
#include "tuner/proposer_factory.hpp"

namespace hone {

class LlmProposer : public Proposer {
 public:
  LlmProposer(const ProposerSetup& setup, const LlmOptions& options, LlmEndpoint endpoint, BackoffSleep sleep = {});

  std::string name() const override { return "llm"; }
  std::size_t budget() const override { return options_.attempts; }
  std::vector<Candidate> propose(std::size_t max) override;
  void observe(const Candidate& candidate, const ResultRecord& result) override;

 private:
  struct Standing;  // the reference's time and the best correct candidate, from the database
  Standing standing() const;
  void ask();       // one request: queues candidates, or notes why there are none
  std::string propose_lesson(const LessonProposal& proposal, std::int64_t& lesson_id);
  void note(const std::string& line) const;
  void remember(std::string note);

  ProposerSetup setup_;
  LlmOptions options_;
  LlmEndpoint endpoint_;
  BackoffSleep sleep_;
  std::size_t used_ = 0;                      // attempts spent
  bool stopped_ = false;                      // the endpoint failed for good
  std::vector<Candidate> queue_;              // made, not yet handed to the tuner
  std::map<std::string, int> attempt_of_;     // candidate key -> attempt number
  std::vector<std::string> notes_;            // on recent attempts, oldest first
  struct Measured {
    std::string summary;
    std::int64_t result_id = 0;
  };
  std::optional<Measured> last_measured_;     // what the next reply's lesson is about
  double reference_ms_ = 0;
};

}  // namespace hone
