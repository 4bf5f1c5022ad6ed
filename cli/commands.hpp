#pragma once
// The `hone` subcommands. Each registers its options on the app and, when chosen, sets the action
// that main runs; exit codes: 0 success, 1 the work ran and found a failure, 2 bad usage or input.
#include <functional>

#include <CLI/CLI.hpp>

namespace hone::cli {

using Action = std::function<int()>;

void add_ops_command(CLI::App& app, Action& action);
void add_compile_command(CLI::App& app, Action& action);
void add_tune_command(CLI::App& app, Action& action);
void add_export_command(CLI::App& app, Action& action);
void add_replay_command(CLI::App& app, Action& action);
void add_lessons_command(CLI::App& app, Action& action);
void add_db_command(CLI::App& app, Action& action);
void add_check_command(CLI::App& app, Action& action);
void add_gate_command(CLI::App& app, Action& action);
void add_report_command(CLI::App& app, Action& action);
void add_devices_command(CLI::App& app, Action& action);
void add_llm_command(CLI::App& app, Action& action);
void add_model_command(CLI::App& app, Action& action);

}  // namespace hone::cli
