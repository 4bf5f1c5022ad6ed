#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/progress_view.hpp"
#include "cli/stop_signals.hpp"
#include "cli/table.hpp"
#include "core/input_error.hpp"
#include "tuner/llm/llm_options.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/tuning_job.hpp"

namespace hone::cli {

namespace {

struct TuneArgs {
  TuneOptions job;
  std::string model, ops, db = "hone.db", shard = "0/1", proposer = "template";
  double time_budget = 0;
};

std::set<std::string> split_list(const std::string& s) {
  std::set<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.insert(item);
  return out;
}

// The LLM proposer's flags. There is deliberately no flag for the key: a flag's value shows in
// `ps` and in shell history; --llm-key-env names the variable that holds it.
void add_llm_options(CLI::App& cmd, LlmOptions& o) {
  cmd.add_option("--llm-base-url", o.base_url, "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)");
  cmd.add_option("--llm-model", o.model, "model name the endpoint serves (default: $HONE_LLM_MODEL)");
  cmd.add_option("--llm-key-env", o.key_env, "environment variable holding the API key (none set: no key is sent)")
      ->capture_default_str();
  cmd.add_option("--llm-attempts", o.attempts, "LLM attempts per task: kernels tried plus replies that gave none")
      ->capture_default_str();
  cmd.add_option("--llm-max-requests", o.max_requests, "HTTP requests to the LLM per job, retries included")->capture_default_str();
  cmd.add_option("--llm-max-tokens", o.max_tokens, "prompt and completion tokens per job")->capture_default_str();
  cmd.add_option("--llm-reply-tokens", o.reply_tokens, "max_tokens of one completion")->capture_default_str();
  cmd.add_option("--llm-timeout", o.timeout_s, "seconds one LLM request may take")->capture_default_str();
  cmd.add_option("--llm-retries", o.retries, "retries of a request on 429, 5xx, timeouts and cut-off answers")->capture_default_str();
  cmd.add_option("--llm-sweep", o.sweep, "configurations tried from one reply's parameter space, at most")->capture_default_str();
  cmd.add_flag("--show-prompt", o.show_prompt, "print every prompt sent to the LLM (stderr); `hone llm show` prints stored ones");
}

std::string strategy_help() {
  std::string names;
  for (const auto& n : strategy_names()) names += (names.empty() ? "" : ", ") + n;
  return "search strategy: " + names + " (auto: exhaustive when the space fits the budget, else model)";
}

int run_tune(TuneArgs a) {
  a.job.model_file = a.model;
  a.job.ops = split_list(a.ops);
  a.job.db_file = a.db;
  a.job.shard = parse_shard(a.shard);
  if (a.job.budget == 0) throw InputError("--budget must be at least 1");
  if (a.time_budget < 0) throw InputError("--time-budget must not be negative");
  if (a.time_budget > 0) a.job.task_seconds = a.time_budget;
  a.job.proposers.clear();
  if (a.proposer == "both") a.job.proposers = {"template", "llm"};
  else a.job.proposers = {a.proposer};
  if (a.job.llm.attempts == 0) throw InputError("--llm-attempts must be at least 1");
  if (a.job.llm.max_requests == 0) throw InputError("--llm-max-requests must be at least 1");
  if (a.job.llm.max_tokens <= 0 || a.job.llm.reply_tokens <= 0) throw InputError("--llm-max-tokens and --llm-reply-tokens must be positive");
  if (!(a.job.llm.timeout_s > 0)) throw InputError("--llm-timeout must be positive");
  if (a.job.llm.retries < 0) throw InputError("--llm-retries must not be negative");
  a.job.stop = &install_stop_signals();

  auto view = make_progress_view(stderr);
  TuneReport report = run_tuning_job(a.job, *view);
  view.reset();

  // The speedup is over the fastest baseline timed in turns with the winner; where none of the
  // candidates beat it, the entry is that baseline (1.00x) and the table says so.
  Table t({"task", "layers", "space", "tried", "passed", "winner", "time ms", "baseline ms", "speedup"});
  for (const auto& o : report.tasks) {
    std::string layers = o.task.layers.empty() ? "" : o.task.layers.front();
    if (o.task.layers.size() > 1) layers += fmt::format(" +{}", o.task.layers.size() - 1);
    std::string winner = o.winner_label ? *o.winner_label
                         : o.static_only ? fmt::format("static checks only: {} passed", o.passed)
                                         : "none: " + o.error;
    if (o.baseline_entry) winner = "the baseline, " + o.baseline + ": no candidate beat it (best: " + o.best_candidate + ")";
    else if (o.winner_label && !o.baseline.empty() && o.baseline != "reference") winner += " (baseline: " + o.baseline + ")";
    if (o.from_earlier_run) winner += " (earlier run)";
    t.add({o.task.label(), layers, std::to_string(o.space), std::to_string(o.tried), std::to_string(o.passed), winner,
           o.winner_label ? fmt::format("{:.4f}", o.winner_ms) : "-", o.baseline_ms > 0 ? fmt::format("{:.4f}", o.baseline_ms) : "-",
           o.winner_label && o.winner_ms > 0 && o.baseline_ms > 0 ? fmt::format("{:.2f}x", o.baseline_ms / o.winner_ms) : "-"});
  }
  std::cout << "\nWinners on " << report.device.id() << " for " << report.device.arch;
  if (report.device.timer == "cpu") std::cout << " (emu: times are CPU times of the emulated kernels, not GPU times)";
  if (report.device.kind == "none") std::cout << " (device none: compiled and checked, nothing ran)";
  std::cout << ", database " << a.db << "\n\n" << t.str();
  if (!report.not_tuned.empty()) {
    std::cout << "\nnot tuned: " << report.not_tuned.size() << " ops of the model have no family in hone\n";
    for (const auto& n : report.not_tuned) std::cout << "  " << n.name << " (needs " << n.family << "): " << n.reason << "\n";
  }
  if (report.interrupted) {
    std::cout << "\ninterrupted: the results so far are stored; run the same command again to continue\n";
    return stop_exit_code();
  }
  return report.all_won() ? 0 : 1;
}

}  // namespace

void add_tune_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand("tune", "Tune every kernel a model needs: search, validate, time, keep the winners");
  cmd->add_option("--model", a->model, "shapes file, e.g. shapes/qwen3-8b.json")->required();
  cmd->add_option("--ops", a->ops, "only these op families, comma-separated (default: all the model needs)");
  cmd->add_option("--device", a->job.device, "auto, emu, cuda or none (compile and static checks only)")->capture_default_str();
  cmd->add_option("--db", a->db, "SQLite database")->capture_default_str();
  cmd->add_option("--budget", a->job.budget, "template candidates evaluated per task, the reference not counted")
      ->capture_default_str();
  cmd->add_option("--time-budget", a->time_budget, "seconds one task's search may take (0: no limit)")->capture_default_str();
  cmd->add_option("--plateau", a->job.plateau, "stop a task's search after this many candidates without a better time (0: never)")
      ->capture_default_str();
  cmd->add_option("--strategy", a->job.strategy, strategy_help())->capture_default_str();
  cmd->add_option("--proposer", a->proposer,
                  "where candidates come from: template, llm (an OpenAI-compatible model writes them) or both "
                  "(the template search, then the LLM refining its winner)")
      ->capture_default_str();
  add_llm_options(*cmd, a->job.llm);
  cmd->add_option("--arch", a->job.arch, "architecture compiled and checked for (default: the GPU's own on cuda, sm_90 on emu and none)");
  cmd->add_option("--seed", a->job.seed, "seed of the search (validation inputs are always fresh)")->capture_default_str();
  cmd->add_option("--jobs", a->job.compile_threads, "compile threads (0: one per core)")->capture_default_str();
  cmd->add_option("--shard", a->shard, "i/n: take every n-th task from the i-th (job arrays, indexed jobs)")
      ->capture_default_str();
  cmd->add_option("--timeout", a->job.timeout_s,
                  "seconds a launch may take before it counts as a hang and its worker is killed (default: 100 times the "
                  "reference's launch, at least 5 s); a worker silent for 300 s, or twice this, is killed");
  cmd->callback([a, &action] { action = [a] { return run_tune(*a); }; });
}

}  // namespace hone::cli
