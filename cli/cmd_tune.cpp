#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/input_error.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/tuning_job.hpp"

namespace hone::cli {

namespace {

struct TuneArgs {
  TuneOptions job;
  std::string model, ops, db = "hone.db";
};

std::set<std::string> split_list(const std::string& s) {
  std::set<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.insert(item);
  return out;
}

int run_tune(TuneArgs a) {
  a.job.model_file = a.model;
  a.job.ops = split_list(a.ops);
  a.job.db_file = a.db;
  if (a.job.budget == 0) throw InputError("--budget must be at least 1");
  TuneReport report = run_tuning_job(a.job, [](const std::string& line) { std::cerr << line << "\n"; });

  Table t({"task", "layers", "space", "tried", "passed", "winner", "time ms", "reference ms", "speedup"});
  for (const auto& o : report.tasks) {
    std::string layers = o.task.layers.empty() ? "" : o.task.layers.front();
    if (o.task.layers.size() > 1) layers += fmt::format(" +{}", o.task.layers.size() - 1);
    t.add({o.task.label(), layers, std::to_string(o.space), std::to_string(o.tried), std::to_string(o.passed),
           o.winner_label ? *o.winner_label : "none: " + o.error, o.winner_label ? fmt::format("{:.4f}", o.winner_ms) : "-",
           o.baseline_ms > 0 ? fmt::format("{:.4f}", o.baseline_ms) : "-",
           o.winner_label && o.winner_ms > 0 ? fmt::format("{:.2f}x", o.baseline_ms / o.winner_ms) : "-"});
  }
  std::cout << "\nWinners on " << report.device.id() << " for " << report.device.arch;
  if (report.device.timer == "cpu") std::cout << " (emu: times are CPU times of the emulated kernels, not GPU times)";
  std::cout << ", database " << a.db << "\n\n" << t.str();
  return report.all_won() ? 0 : 1;
}

}  // namespace

void add_tune_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand("tune", "Tune every kernel a model needs: search, validate, time, keep the winners");
  cmd->add_option("--model", a->model, "shapes file, e.g. shapes/qwen3-8b.json")->required();
  cmd->add_option("--ops", a->ops, "only these op families, comma-separated (default: all the model needs)");
  cmd->add_option("--device", a->job.device, "auto, emu or cuda")->capture_default_str();
  cmd->add_option("--db", a->db, "SQLite database")->capture_default_str();
  cmd->add_option("--budget", a->job.budget, "candidates evaluated per task, the reference not counted")->capture_default_str();
  cmd->add_option("--strategy", a->job.strategy, "auto, exhaustive or random")->capture_default_str();
  cmd->add_option("--arch", a->job.arch, "architecture compiled and checked for")->capture_default_str();
  cmd->add_option("--seed", a->job.seed, "seed of the search (validation inputs are always fresh)")->capture_default_str();
  cmd->add_option("--jobs", a->job.compile_threads, "compile threads (0: one per core)")->capture_default_str();
  cmd->add_option("--timeout", a->job.worker_timeout_s, "seconds one evaluation may take before its worker is killed")
      ->capture_default_str();
  cmd->callback([a, &action] { action = [a] { return run_tune(*a); }; });
}

}  // namespace hone::cli
