#pragma once
// Making a task's proposers by name: "template" (the template search) and "llm" (the LLM
// proposer, tuner/llm/llm_proposer.hpp).
#include <cstdint>
#include <memory>
#include <string>

#include "core/op_spec.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "runtime/device.hpp"
#include "tuner/job_progress.hpp"
#include "tuner/proposer.hpp"
#include "tuner/task.hpp"
#include "tuner/template_search.hpp"

namespace hone {

struct TuneOptions;

struct ProposerSetup {
  const OpSpec* op = nullptr;
  const Task* task = nullptr;
  const TuneOptions* options = nullptr;
  KnowledgeDb* db = nullptr;
  std::int64_t task_id = 0;
  DeviceInfo device;
  JobProgress* progress = nullptr;  // where notes go (the LLM's prompts with --show-prompt); may be null
};

/// Throws InputError for a name that is not a proposer, or (llm) options that name no endpoint.
std::unique_ptr<Proposer> make_proposer(const std::string& name, const ProposerSetup& setup);

/// Throws InputError, before any work starts, for a name make_proposer would refuse.
void check_proposer(const std::string& name);
/// The same, and for "llm" also an endpoint the options do not name (no base URL or model).
void check_proposer(const std::string& name, const TuneOptions& options);

/// Throws InputError for a strategy name make_strategy would refuse.
void check_strategy(const std::string& name);

}  // namespace hone
