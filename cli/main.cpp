// hone: shape-specialised CUDA kernels for a model's real shapes, proven correct and timed.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/expr.hpp"
#include "core/input_error.hpp"
#include "knowledge_db/knowledge_db.hpp"

int main(int argc, char** argv) {
  CLI::App app{"hone: makes shape-specialised CUDA kernels for a model's real shapes, proves them correct, "
               "times them honestly and exports the winners for serving engines"};
  app.require_subcommand(1);
  hone::cli::Action action;
  hone::cli::add_ops_command(app, action);
  hone::cli::add_compile_command(app, action);
  hone::cli::add_tune_command(app, action);
  hone::cli::add_export_command(app, action);
  hone::cli::add_replay_command(app, action);
  hone::cli::add_lessons_command(app, action);
  hone::cli::add_db_command(app, action);
  hone::cli::add_check_command(app, action);
  hone::cli::add_gate_command(app, action);
  hone::cli::add_report_command(app, action);
  hone::cli::add_devices_command(app, action);
  hone::cli::add_llm_command(app, action);
  hone::cli::add_model_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    return action ? action() : 2;
  } catch (const std::exception& e) {
    // Bad input (flags, files, expressions, a database hone cannot use) is exit 2; anything else
    // is hone's own failure.
    const bool bad_input = dynamic_cast<const hone::InputError*>(&e) || dynamic_cast<const hone::ExprError*>(&e) ||
                           dynamic_cast<const hone::DbError*>(&e);
    std::cerr << "hone: " << (bad_input ? "" : "internal error: ") << e.what() << "\n";
    return bad_input ? 2 : 1;
  }
}
