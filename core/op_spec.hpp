#pragma once
// An op family's spec (templates/<op>/spec.json): the kernel signature with dtypes and roles,
// shape symbols, tolerance, flops and bytes formulas, input distributions, the reference kernel
// and the variant templates with their parameter spaces and launch rules.
#include <compare>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype.hpp"
#include "core/expr.hpp"
#include "core/launch_rule.hpp"
#include "core/param_space.hpp"

namespace hone {

/// An element passes when |got - expected| <= atol + rtol * |expected| + row_rtol * rms(row), the
/// row being the expected output's row (index of the first dim). row_rtol is for sums over a long
/// K: their rounding error follows the magnitude of the terms, not of the result, so an element
/// that cancels to near zero in a row of large values carries that row's error (tensor cores,
/// which sum in fp32 but truncate, showed it on an H200 in a row scaled 644x).
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
  double row_rtol = 0.0;
};

/// How an input buffer is filled: normal(mean, std) or uniform(lo, hi), before rounding to its
/// dtype; with a row scale, each row (index of the first dim) is multiplied by its own factor drawn
/// log-uniformly from [row_scale_lo, row_scale_hi], which gives mixed-scale inputs.
struct InputDist {
  std::string kind = "normal";  // "normal" | "uniform"
  double mean = 0.0, std = 1.0;
  double lo = -1.0, hi = 1.0;
  double row_scale_lo = 1.0, row_scale_hi = 1.0;

  bool mixed_scale() const { return row_scale_lo != 1.0 || row_scale_hi != 1.0; }
  auto operator<=>(const InputDist&) const = default;
};

/// A named variation of the inputs: some arguments drawn from other distributions, and
/// optionally other tolerances (inputs scaled down need a smaller atol to mean anything) and
/// other values of float scalars (a zero-centred norm's w_offset = 1).
struct InputCase {
  std::string name;
  std::map<std::string, InputDist> args;   // argument name -> distribution
  std::map<DType, Tolerance> tolerance;    // overrides of the op's tolerance
  std::map<std::string, double> scalars;   // float scalar argument -> value, over the task's
};

/// An index input: a structured integer tensor drawn by a generator of core/index_generator.hpp
/// (`"init": {"index": "block_table", "lengths": "seq_lens", "page": "PAGE", "pages": "P"}`).
struct IndexInit {
  std::string kind;                             // the generator
  std::map<std::string, Expr> params;           // its parameters, expressions of the shape symbols
  std::map<std::string, std::string> inputs;    // its parameters that name another argument it depends on
};

/// A buffer only partly addressed by an index input (`"addressed_by": {"index": "topk_ids",
/// "extent": "2 * N * K"}`): each item the index addresses (a page's token, a slot, an expert)
/// covers `extent` elements from `offset` (an expression of the shape symbols and `item`; by
/// default item * extent). An input's other elements hold poison (NaN); an in-out buffer's other
/// elements must come back unchanged.
struct AddressedBy {
  std::string index;   // the index argument
  Expr extent;
  Expr offset;         // empty: item * extent
};

enum class ArgRole { In, Out, InOut, Scalar, Scratch };

struct ArgSpec {
  std::string name;
  DType dtype = DType::f32;
  bool pointer = false;
  bool is_const = false;
  ArgRole role = ArgRole::Scalar;
  std::vector<Expr> dims;       // buffers: the extent of each dimension
  Expr int_value;               // integer scalars: an expression of the shape symbols
  double float_value = 0.0;     // float scalars: the default, a model file may override it
  double range_lo = 0.0, range_hi = 0.0;  // float scalars: the values engines pass, drawn by the hidden tests
  InputDist init;               // In and InOut buffers
  std::optional<IndexInit> index;        // In buffers drawn by an index generator instead of `init`
  std::optional<AddressedBy> addressed;  // In and InOut buffers only partly addressed by an index input
  Expr zeroed;                  // scratch: elements at its start that are zero on entry and must be again on exit

  /// The parameter's type in CUDA C++, e.g. "const __nv_bfloat16*".
  std::string cuda_type() const;
  /// The parameter as written in CUDA C++, e.g. "const __nv_bfloat16* x".
  std::string cuda_declaration() const { return cuda_type() + " " + name; }
  /// Elements in the buffer at a shape.
  std::int64_t elements(const Bindings& shape) const;
};

struct KernelSource {
  std::filesystem::path path;
  std::string text;
};

struct ReferenceKernel {
  KernelSource source;
  std::string entry;
  LaunchRule launch;
};

struct Variant {
  std::string name;
  KernelSource source;
  std::string function;              // the __device__ template that does the work
  std::vector<Expr> template_args;   // over parameters and static shape symbols
  ParamSpace space;
  LaunchRule launch;
  // Where a configuration of the variant is worth a search's time, over every shape symbol (a
  // dynamic one at the bucket's upper bound, the shape a task is tuned at) and the parameters:
  // tensor cores at "M >= 8", a tile of MT rows of x at "MT <= M". Empty: always. Unlike a
  // constraint it never decides correctness: every configuration is right at every shape.
  Expr when;
  // The blocks of a thread-block cluster (sm_90), over parameters and static symbols: the entry is
  // declared with __cluster_dims__ of these, so it launches as any kernel does (engines need
  // nothing new) and its blocks may meet at cluster.sync(). Empty: no cluster.
  std::vector<Expr> cluster;
};

struct OpSpec {
  std::string name;
  std::string summary;
  std::filesystem::path dir;
  std::vector<std::string> symbols;   // shape symbols in declaration order
  std::set<std::string> dynamic;      // symbols that vary at serving time (bucketed)
  std::set<std::string> flags;        // static symbols that switch a behaviour on (1) or off (0), not sizes
  std::vector<ArgSpec> args;
  std::map<DType, Tolerance> tolerance;
  std::vector<InputCase> input_cases;   // checked with the visible inputs, besides each argument's own init
  std::vector<InputCase> hidden_cases;  // adversarial values, used only by the hidden tests
  Expr flops, bytes;
  ReferenceKernel reference;
  std::vector<Variant> variants;
  std::vector<std::pair<std::string, std::string>> aliases;  // (out, input): engines may pass one buffer for both
  int chain_calls = 1;                // calls in a row on the same in-out state, index inputs redrawn between them
  std::vector<std::size_t> index_order;  // the index inputs (arg positions), each after those it depends on
  Bindings example_shape;             // a typical shape, for `hone ops` and the tests
  std::string content_hash;           // SHA-256 over spec.json and every source it names

  /// The signature as "rmsnorm(bf16* out, const bf16* x, ...)".
  std::string signature() const;
  const ArgSpec* find_arg(const std::string& name) const;
  /// The position of argument `name` in args; throws std::out_of_range when there is none.
  std::size_t arg_index(const std::string& name) const;
  /// The tolerance for outputs of `dtype` under an input case (its override, else the op's).
  Tolerance tolerance_for(DType dtype, const InputCase* input_case = nullptr) const;
  /// Symbols whose values are fixed for a tuning task (all but the dynamic ones).
  bool is_static(const std::string& symbol) const { return !dynamic.count(symbol); }
  /// Checks that `shape` binds every symbol to a positive value; throws InputError otherwise.
  void check_shape(const Bindings& shape) const;
};

/// Loads <dir>/spec.json and the sources it names; throws InputError naming the file and problem.
OpSpec load_op_spec(const std::filesystem::path& dir);

/// The op families under a templates root: every sub-folder holding a spec.json, sorted.
std::vector<std::string> list_op_families(const std::filesystem::path& templates_root);

/// Loads the family `op` from the templates root; throws InputError when there is none.
OpSpec load_op(const std::filesystem::path& templates_root, const std::string& op);

/// Parses "k=v,k=v" into bindings; throws InputError on a malformed item.
Bindings parse_shape_text(const std::string& text);

}  // namespace hone
