#include "tuner/llm/llm_proposer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/input_error.hpp"
#include "tuner/llm/llm_feedback.hpp"
#include "tuner/llm/llm_prompt.hpp"
#include "tuner/llm/llm_reply.hpp"
#include "tuner/db_records.hpp"

namespace hone {

struct LlmProposer::Standing {
  double reference_ms = 0;
  std::int64_t parent_id = 0;              // the best correct candidate, the reference included
  std::optional<PromptKernel> best;        // that candidate when it is not the reference
};

LlmProposer::LlmProposer(const ProposerSetup& setup, const LlmOptions& options, LlmEndpoint endpoint, BackoffSleep sleep)
    : setup_(setup), options_(options), endpoint_(std::move(endpoint)), sleep_(std::move(sleep)) {}

void LlmProposer::note(const std::string& line) const {
  if (setup_.progress) setup_.progress->note(line);
}

void LlmProposer::remember(std::string n) {
  notes_.push_back(std::move(n));
  while (notes_.size() > std::max<std::size_t>(1, options_.failure_notes)) notes_.erase(notes_.begin());
}

// The reference's time and the fastest correct candidate on this device, from every result the
// task has: the template search's, earlier runs', this proposer's own.
LlmProposer::Standing LlmProposer::standing() const {
  Standing s;
  KnowledgeDb& db = *setup_.db;
  const std::string device = setup_.device.id();
  std::optional<ResultRecord> best;
  std::optional<CandidateRecord> best_record;
  for (const auto& r : db.results_for_task(setup_.task_id)) {
    if (r.device != device || r.verdict != "pass" || r.time_ms <= 0) continue;
    if (r.is_retiming()) continue;
    auto c = db.candidate(r.candidate_id);
    if (!c) continue;
    if (c->origin == "reference") s.reference_ms = r.time_ms;  // the newest reference time
    if (!best || r.time_ms < best->time_ms) {
      best = r;
      best_record = c;
    }
  }
  if (!best) return s;
  s.parent_id = best->candidate_id;
  if (best_record->origin == "reference") return s;
  PromptKernel k;
  k.label = candidate_record_label(*best_record);
  k.source = best_record->source;
  k.launch = best_record->launch;
  k.time_ms = best->time_ms;
  const double bandwidth = setup_.device.copy_bandwidth_gbs;
  if (bandwidth > 0) {
    const double bytes = static_cast<double>(setup_.op->bytes.eval(setup_.task->shape));
    k.roofline = bytes / (bandwidth * 1e9) * 1e3 / best->time_ms;
  }
  if (auto compile = db.compile(best->candidate_id, setup_.task->arch); compile && compile->ok)
    k.resources = {{"registers", compile->registers},       {"spill_stores", compile->spill_stores},
                   {"spill_loads", compile->spill_loads},   {"shared_bytes", compile->shared_bytes},
                   {"stack_bytes", compile->stack_bytes}};
  s.best = std::move(k);
  return s;
}

std::vector<Candidate> LlmProposer::propose(std::size_t max) {
  while (queue_.empty()) {
    if (used_ >= budget() || stopped_ || max == 0) return {};
    const std::string why = options_.spent->exhausted(options_.max_requests, options_.max_tokens);
    if (!why.empty()) {
      if (options_.spent->first_to_notice()) note("  llm: " + why + "; no more LLM requests in this job");
      return {};
    }
    ask();
  }
  const std::size_t n = std::min(max, queue_.size());
  std::vector<Candidate> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.begin() + n));
  queue_.erase(queue_.begin(), queue_.begin() + n);
  return out;
}

void LlmProposer::ask() {
  const OpSpec& op = *setup_.op;
  const Task& task = *setup_.task;
  KnowledgeDb& db = *setup_.db;
  const int attempt = static_cast<int>(used_) + 1;
  const Standing standing_now = standing();
  reference_ms_ = standing_now.reference_ms;

  PromptInput in;
  in.op = &op;
  in.task = &task;
  in.device = setup_.device;
  in.reference_ms = standing_now.reference_ms;
  in.best = standing_now.best;
  LessonQuery query;
  query.text = op.name + " " + op.summary + " " + task.label() + " " + task.arch + " " + setup_.device.kind;
  query.tag_prefixes = {"op/" + op.name};
  query.top = options_.lessons;
  if (options_.lessons > 0) in.lessons = db.search_lessons(query);
  in.notes = notes_;
  if (last_measured_) in.lesson_subject = last_measured_->summary;
  in.attempt = static_cast<std::size_t>(attempt);
  in.attempts = budget();
  in.budget_chars = options_.prompt_chars;
  const Prompt prompt = build_prompt(in);
  if (options_.show_prompt)
    note(fmt::format("  llm prompt, {} attempt {} ({} characters, lessons {}):\n{}", task.label(), attempt, prompt.chars(),
                     nlohmann::json(prompt.lesson_ids).dump(), prompt.text()));

  LlmAttemptRecord rec;
  rec.task_id = setup_.task_id;
  rec.attempt = attempt;
  rec.model = endpoint_.model;
  rec.parent_id = standing_now.parent_id;
  rec.prompt = prompt.to_json();
  rec.lessons_used = prompt.lesson_ids;

  ChatReply reply;
  try {
    reply = chat_completion(endpoint_, prompt.messages, sleep_);
  } catch (const LlmError& e) {
    options_.spent->spend(e.requests, 0);
    rec.outcome = "request_failed";
    rec.reason = e.what();
    rec.requests = e.requests;
    db.add_llm_attempt(rec);
    // Retries are spent: asking again at once would fail the same way. The next task tries anew.
    stopped_ = true;
    note("  llm: " + std::string(e.what()) + "; no more LLM attempts for this task");
    return;
  }
  options_.spent->spend(reply.requests, reply.usage.total());
  rec.reply = reply.content;
  rec.finish_reason = reply.finish_reason;
  rec.requests = reply.requests;
  rec.prompt_tokens = reply.usage.prompt_tokens;
  rec.completion_tokens = reply.usage.completion_tokens;
  rec.latency_ms = reply.latency_ms;

  ParsedReply parsed = parse_llm_reply(reply.content, op);
  if (parsed.lesson) rec.lesson_note = propose_lesson(*parsed.lesson, rec.lesson_id);
  else if (!parsed.lesson_error.empty()) rec.lesson_note = "not kept: " + parsed.lesson_error;

  std::string reason = parsed.error;
  LlmRendering rendering;
  if (parsed.kernel) {
    rendering = render_llm_kernel(op, *parsed.kernel, task.shape, std::min(options_.sweep, budget() - used_));
    reason = rendering.error;
  }
  if (reply.cut_off() && rendering.candidates.empty())
    reason = fmt::format("the reply was cut off at the limit of {} tokens; write a shorter source ({})",
                         endpoint_.max_reply_tokens, reason);
  if (rendering.candidates.empty()) {
    ++used_;
    rec.outcome = "unusable";
    rec.reason = reason;
    db.add_llm_attempt(rec);
    remember(reply_note(attempt, reason));
    note(fmt::format("  llm attempt {}: no kernel: {}", attempt, reason));
    return;
  }
  for (auto& c : rendering.candidates) {
    CandidateRecord record = candidate_record(c);
    record.parent = standing_now.parent_id;
    rec.candidate_ids.push_back(db.upsert_candidate(record));
    attempt_of_[c.key()] = attempt;
  }
  rec.outcome = "candidates";
  db.add_llm_attempt(rec);
  used_ += rendering.candidates.size();
  queue_ = std::move(rendering.candidates);
}

// The LLM names situation and action; the database keeps the lesson only if it does (and its
// tags are paths). Returns what became of it, for the attempt's record.
std::string LlmProposer::propose_lesson(const LessonProposal& proposal, std::int64_t& lesson_id) {
  if (!last_measured_) return "not kept: no measured attempt to learn from yet";
  LessonRecord l;
  l.situation = proposal.situation;
  l.action = proposal.action;
  l.origin = "llm";
  l.confidence = 0.3;  // one model's reading of one measurement: below distilled lessons
  l.evidence = {last_measured_->result_id};
  std::string dropped;
  for (const auto& t : proposal.tags) {
    if (tag_problem(t).empty()) l.tags.push_back(t);
    else dropped += (dropped.empty() ? "" : ", ") + t;
  }
  // Retrieval filters by op: the lesson must carry it, whatever the LLM tagged.
  std::vector<std::string> implied = {"op/" + setup_.op->name, "arch/" + setup_.task->arch, "origin/llm"};
  if (setup_.device.timer == "cpu") implied.push_back("timer/cpu");
  for (const auto& t : implied)
    if (std::find(l.tags.begin(), l.tags.end(), t) == l.tags.end()) l.tags.push_back(t);
  try {
    lesson_id = setup_.db->add_lesson(l);
  } catch (const InputError& e) {
    return std::string("not kept: ") + e.what();
  }
  last_measured_.reset();  // one lesson per measured attempt
  return dropped.empty() ? "kept" : "kept without the tags " + dropped;
}

void LlmProposer::observe(const Candidate& candidate, const ResultRecord& result) {
  auto it = attempt_of_.find(candidate.key());
  if (it == attempt_of_.end()) return;
  const std::string n = result_note(it->second, candidate, result, reference_ms_);
  remember(n);
  // The lesson request shows only the note's first line: the subject, not the compiler's log.
  last_measured_ = Measured{n.substr(0, n.find('\n')), result.id};
}

}  // namespace hone
