#pragma once
// The prompt the LLM proposer sends for one attempt: the op's contract and reference kernel, the
// task's shape, bucket and architecture with its limits, the best correct kernel so far with its
// time, roofline fraction and resource usage, the lessons retrieved for the task, short notes on
// recent attempts, and the reply format. It is kept within a size budget by dropping, in turn,
// the lowest-ranked lessons, the oldest notes and the best kernel's source (its figures stay),
// then by shortening what is left; the contract, the reference and the format always stay.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/op_spec.hpp"
#include "knowledge_db/lesson_search.hpp"
#include "runtime/device.hpp"
#include "tuner/llm/llm_client.hpp"
#include "tuner/task.hpp"
#include "validator/static_stage.hpp"

namespace hone {

/// The best correct kernel so far, as the prompt shows it.
struct PromptKernel {
  std::string label;                 // "llm rmsnorm_warp", "rmsnorm_row_block BLOCK=64,VEC=4"
  std::string source;
  nlohmann::json launch;             // LaunchRule::to_json()
  double time_ms = 0;
  std::optional<double> roofline;    // memory-bound floor over its time, where the device knows its bandwidth
  nlohmann::json resources;          // registers, spills, shared and stack bytes
};

struct PromptInput {
  const OpSpec* op = nullptr;
  const Task* task = nullptr;
  DeviceInfo device;
  StaticLimits limits;
  double reference_ms = 0;           // 0 when not timed
  std::optional<PromptKernel> best;  // none: nothing better than the reference yet
  std::vector<LessonHit> lessons;    // best first
  std::vector<std::string> notes;    // on recent attempts, oldest first
  std::string lesson_subject;        // the previous measured attempt, to propose a lesson about; "" for none
  std::size_t attempt = 1, attempts = 1;
  std::size_t budget_chars = 24000;
};

struct Prompt {
  std::vector<ChatMessage> messages;     // system, then user
  std::vector<std::int64_t> lesson_ids;  // the lessons it shows
  std::size_t lessons_dropped = 0, notes_dropped = 0;
  bool best_source_dropped = false;

  std::size_t chars() const;
  /// The messages as stored with the attempt: [{"role", "content"}, ...].
  nlohmann::json to_json() const;
  /// The messages as one readable text, for --show-prompt.
  std::string text() const;
};

Prompt build_prompt(const PromptInput& input);

}  // namespace hone
