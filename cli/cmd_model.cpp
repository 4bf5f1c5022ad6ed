#include <iostream>

#include "cli/commands.hpp"
#include "cli/number_list.hpp"
#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "tuner/model_import/model_import.hpp"

namespace hone::cli {

namespace {

struct ImportArgs {
  ImportOptions options;
  std::string out, buckets, context_buckets;
};

int run_import(ImportArgs a) {
  if (!a.buckets.empty()) a.options.buckets = positive_integers(a.buckets, "--buckets");
  if (!a.context_buckets.empty()) a.options.context_buckets = positive_integers(a.context_buckets, "--context-buckets");
  a.options.out = a.out;
  ImportResult r = import_model(a.options, load_family_catalog(templates_root()));
  if (a.out.empty()) std::cout << r.text;
  else write_file_atomically(a.out, r.text);
  std::string families;
  for (const auto& f : r.families) families += (families.empty() ? "" : ", ") + f;
  std::cerr << (a.out.empty() ? std::string("shapes") : "wrote " + a.out) << ": " << r.ops << " ops tuned (" << families << "), "
            << r.not_tuned << " listed as not tuned\n";
  return 0;
}

}  // namespace

void add_model_command(CLI::App& app, Action& action) {
  auto* model = app.add_subcommand("model", "Model files: import a Hugging Face config as a shapes file");
  model->require_subcommand(1);
  auto a = std::make_shared<ImportArgs>();
  std::string archs;
  for (const auto& n : importable_architectures()) archs += (archs.empty() ? "" : ", ") + n;
  auto* cmd = model->add_subcommand("import", "Write the shapes file of a model from its config.json (architectures: " + archs + ")");
  cmd->add_option("source", a->options.source, "config.json, or a downloaded model folder holding one")->required();
  cmd->add_option("--tp", a->options.tp, "tensor-parallel GPUs: the dims of one GPU, as vLLM shards the model")->capture_default_str();
  cmd->add_option("--name", a->options.name, "the model's name in the file (default: the folder or file name, -tpN when --tp > 1)");
  cmd->add_option("--hf-id", a->options.hf_id, "the model's Hugging Face id, recorded in the file");
  cmd->add_option("--out", a->out, "the shapes file to write (default: stdout)");
  cmd->add_option("--buckets", a->buckets, "decode tokens buckets, e.g. 1,2,4,8,16,32,64 (the default)");
  cmd->add_option("--context-buckets", a->context_buckets, "attention's context buckets (default 1024,4096,16384,32768)");
  cmd->callback([a, &action] { action = [a] { return run_import(*a); }; });
}

}  // namespace hone::cli
