#pragma once
// A model's shapes file (shapes/<model>.json): its published dimensions, the ops it needs with
// their static dims, and the dynamic dims (decode tokens) with their buckets.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expr.hpp"

namespace hone {

/// A range of a dynamic dim that shares one kernel: lo..hi inclusive, tuned at hi.
struct Bucket {
  std::int64_t lo = 1, hi = 1;
};

struct DynamicDim {
  std::string name;
  std::vector<Bucket> buckets;
};

struct ModelOp {
  std::string name;                        // the layer it serves, e.g. "input_layernorm"
  std::string op;                          // the op family
  std::map<std::string, Expr> dims;        // op symbol -> expression over the model's dynamic dims
  std::map<std::string, double> scalars;   // float scalar arguments, e.g. eps
};

/// An op of the model that hone does not tune: its family is missing, or hone has none for it
/// (a bias epilogue, a gelu MLP, an unsupported quantisation). Kept so that a job can say so.
struct NotTunedOp {
  std::string name;
  std::string family;                      // the family it would need ("family_needed", or "op")
  nlohmann::json dims;                     // documentation: the shape it runs at
  std::string reason;
};

struct ModelShapes {
  std::filesystem::path file;
  std::string model;
  nlohmann::json config;                   // the published dimensions, for the record
  std::vector<DynamicDim> dynamic;
  std::vector<ModelOp> ops;
  std::vector<NotTunedOp> not_tuned;
};

/// Bucket upper bounds -> buckets: {1,2,4} -> [1,1], [2,2], [3,4].
std::vector<Bucket> buckets_from_bounds(const std::vector<std::int64_t>& bounds);

/// The default buckets: powers of two up to 64.
std::vector<std::int64_t> default_bucket_bounds();

/// Loads and checks a shapes file; throws InputError naming the file and the problem.
ModelShapes load_model_shapes(const std::filesystem::path& file);

}  // namespace hone
