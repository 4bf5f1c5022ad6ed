#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/paths.hpp"
#include "tuner/template_proposer.hpp"

namespace hone::cli {

void add_ops_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("ops", "List the op families with their signatures and template spaces");
  cmd->callback([&action] {
    action = [] {
      Table t({"op", "signature", "dynamic", "variants", "configs at example shape"});
      for (const auto& name : list_op_families(templates_root())) {
        OpSpec op = load_op(templates_root(), name);
        std::string dynamic;
        for (const auto& d : op.dynamic) dynamic += (dynamic.empty() ? "" : ",") + d;
        std::string example;
        for (const auto& [k, v] : op.example_shape) example += (example.empty() ? "" : ",") + k + "=" + std::to_string(v);
        t.add({op.name, op.signature(), dynamic, std::to_string(op.variants.size()),
               op.example_shape.empty() ? "-" : fmt::format("{} ({})", template_space(op, op.example_shape).size(), example)});
      }
      std::cout << t.str();
      return 0;
    };
  });
}

}  // namespace hone::cli
