#pragma once
// A launch rule: grid, block and dynamic shared memory as expressions of shape symbols and
// parameters, evaluated to concrete launch dimensions for one shape.
#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/expr.hpp"

namespace hone {

struct LaunchDims {
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::array<std::int64_t, 3> block{1, 1, 1};
  std::int64_t smem = 0;

  std::int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
  std::int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
};

struct LaunchRule {
  std::array<Expr, 3> grid;
  std::array<Expr, 3> block;
  Expr smem = Expr::constant(0);

  /// Evaluates the rule; throws ExprError on an unbound symbol, and InputError when a dimension
  /// is not positive or the block exceeds 1024 threads.
  LaunchDims eval(const Bindings& symbols) const;
  nlohmann::json to_json() const;
  /// The rule with the given symbols (a configuration's parameters) replaced by their values.
  LaunchRule bind(const Bindings& symbols) const;
};

/// Reads {"grid": [..3 expressions..], "block": [...], "smem": "..."}; strings or integers;
/// missing trailing dimensions are 1. Throws InputError naming `file` and the problem.
LaunchRule parse_launch_rule(const nlohmann::json& j, const std::string& file, const std::string& where);

/// Parses "E,E,E" (one to three expressions) as used on the command line.
std::array<Expr, 3> parse_dim_list(const std::string& text);

}  // namespace hone
