#pragma once
// A variant's parameter space: named integer parameters with their candidate values, and the
// constraints a configuration must satisfy at a given shape.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/expr.hpp"

namespace hone {

/// One point of a parameter space: parameter name -> value.
using Config = Bindings;

struct ParamSpace {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> params;  // in declaration order
  std::vector<Expr> constraints;  // over parameters and static shape symbols

  /// Size of the Cartesian product, before constraints.
  std::uint64_t size() const;
  /// Every configuration that satisfies all constraints at `shape`, in a fixed order.
  std::vector<Config> valid_configs(const Bindings& shape) const;
  /// Whether config satisfies every constraint at `shape`; on false, `why` names the first failing one.
  bool satisfies(const Config& config, const Bindings& shape, std::string* why = nullptr) const;
};

/// "BLOCK=256,VEC=8" for logs and tables.
std::string config_to_string(const Config& config);

}  // namespace hone
