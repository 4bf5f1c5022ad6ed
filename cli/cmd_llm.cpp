// `hone llm attempts|show`: what the LLM proposer asked and got, read back from the database.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/existing_db.hpp"
#include "cli/table.hpp"
#include "core/input_error.hpp"
#include "tuner/llm/llm_attempt_report.hpp"

namespace hone::cli {

namespace {

struct LlmArgs {
  std::string db = "hone.db";
  std::string task;
  std::int64_t id = 0;
  bool json = false;
};

std::string outcome_cell(const LlmAttemptView& v) {
  if (v.attempt.outcome != "candidates") return v.attempt.outcome + ": " + v.attempt.reason.substr(0, 60);
  std::string s;
  for (const auto& c : v.candidates) {
    s += s.empty() ? "" : "; ";
    if (c.verdict.empty()) s += "not evaluated";
    else if (c.verdict == "pass") s += c.time_ms > 0 ? fmt::format("pass {:.4f} ms", c.time_ms) : "pass";
    else s += "fail at " + c.stage;
  }
  return s;
}

std::string ids(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto i : v) s += (s.empty() ? "#" : ", #") + std::to_string(i);
  return s.empty() ? "-" : s;
}

int run_attempts(const LlmArgs& a) {
  auto db = open_existing_db(a.db);
  const auto views = llm_attempt_views(*db, a.task);
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : views) {
      nlohmann::json j = v.to_json();
      j.erase("prompt");  // `hone llm show ID` has it; a listing of every prompt would bury the rest
      j.erase("reply");
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  Table t({"id", "task", "attempt", "model", "outcome", "tokens", "lessons used"});
  for (const auto& v : views)
    t.add({std::to_string(v.attempt.id), v.task, std::to_string(v.attempt.attempt), v.attempt.model, outcome_cell(v),
           std::to_string(v.attempt.prompt_tokens + v.attempt.completion_tokens), ids(v.attempt.lessons_used)});
  std::cout << t.str();
  if (views.empty()) std::cout << "no LLM attempts" << (a.task.empty() ? "" : " for tasks matching '" + a.task + "'") << "\n";
  return 0;
}

int run_show(const LlmArgs& a) {
  auto db = open_existing_db(a.db);
  const auto v = llm_attempt_view(*db, a.id);
  if (!v) throw InputError(fmt::format("{}: no LLM attempt #{}", a.db, a.id));
  if (a.json) {
    std::cout << v->to_json().dump(2) << "\n";
    return 0;
  }
  const LlmAttemptRecord& r = v->attempt;
  std::cout << fmt::format("LLM attempt #{}: {}, attempt {}, model {}, {}\n", r.id, v->task, r.attempt, r.model, r.created_at);
  std::cout << fmt::format("usage: {} requests, {} prompt + {} completion tokens, {:.0f} ms; finish reason {}\n", r.requests,
                           r.prompt_tokens, r.completion_tokens, r.latency_ms, r.finish_reason.empty() ? "-" : r.finish_reason);
  std::cout << "outcome: " << r.outcome << (r.reason.empty() ? "" : ": " + r.reason) << "\n";
  for (const auto& c : v->candidates)
    std::cout << fmt::format("  candidate #{} {}{}: {}\n", c.candidate_id, c.entry,
                             c.params.is_object() && !c.params.empty() ? " " + c.params.dump() : "",
                             c.verdict.empty() ? "not evaluated"
                             : c.verdict == "pass" ? fmt::format("pass, {:.4f} ms", c.time_ms)
                                                   : "fail at the " + c.stage + " stage: " + c.reason);
  if (r.lesson_id) std::cout << fmt::format("lesson proposed: #{} ({})\n", r.lesson_id, r.lesson_note);
  else if (!r.lesson_note.empty()) std::cout << "lesson proposed: " << r.lesson_note << "\n";
  std::cout << "\nlessons in the prompt: " << ids(r.lessons_used) << "\n";
  for (const auto& l : v->lessons) std::cout << fmt::format("  #{} when {}: {}\n", l.id, l.situation, l.action);
  std::cout << "\n=== prompt, exactly as sent ===\n" << v->prompt_text();
  std::cout << "\n=== reply ===\n" << r.reply << (r.reply.empty() || r.reply.back() == '\n' ? "" : "\n");
  return 0;
}

}  // namespace

void add_llm_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<LlmArgs>();
  auto* cmd = app.add_subcommand("llm", "What the LLM proposer asked and got: attempts, their prompts and replies");
  cmd->require_subcommand(1);

  auto* attempts = cmd->add_subcommand("attempts", "List the LLM attempts: outcome, verdicts, tokens, lessons used");
  attempts->add_option("--db", a->db, "SQLite database")->capture_default_str();
  attempts->add_option("--task", a->task, "only tasks whose label or key contains this text");
  attempts->add_flag("--json", a->json, "JSON instead of a table");
  attempts->callback([a, &action] { action = [a] { return run_attempts(*a); }; });

  auto* show = cmd->add_subcommand("show", "One attempt: the exact prompt, the lessons it used, the reply and the verdicts");
  show->add_option("id", a->id, "attempt id (from `hone llm attempts`)")->required();
  show->add_option("--db", a->db, "SQLite database")->capture_default_str();
  show->add_flag("--json", a->json, "JSON instead of text");
  show->callback([a, &action] { action = [a] { return run_show(*a); }; });
}

}  // namespace hone::cli
