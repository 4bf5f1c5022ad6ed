#pragma once
// Tuning tasks: one op at one static shape, one bucket of its dynamic dims, one architecture,
// derived from a model's shapes file. Layers with the same shapes share a task.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/model_shapes.hpp"
#include "core/op_spec.hpp"

namespace hone {

struct Task {
  std::string op;
  Bindings static_dims;
  std::map<std::string, Bucket> buckets;   // the op's dynamic symbols and their ranges
  Bindings shape;                          // the representative shape: every dynamic symbol at its bucket's hi
  std::map<std::string, double> scalars;
  std::string arch;
  std::vector<std::string> layers;         // "qwen3-8b/input_layernorm", ...

  /// Unique over op, static dims, buckets, scalars and arch.
  std::string key() const;
  /// "rmsnorm hidden=4096 tokens=5..8"
  std::string label() const;
};

/// The tasks of a model, for the ops in `only` (all when empty), in the order of the shapes file
/// and of its buckets. Throws InputError naming the shapes file for an op family that does not
/// exist, dims that do not match the family's symbols, or a static symbol given as an expression
/// of the dynamic dims.
std::vector<Task> tasks_from_model(const ModelShapes& model, const std::filesystem::path& templates_root,
                                   const std::set<std::string>& only, const std::string& arch);

}  // namespace hone
