#pragma once
// What the LLM proposer accepts as a reply: one JSON object, bare or in a ```json fence,
//   {"entry": "name", "source": "...", "launch": {"grid": [E,E,E], "block": [E,E,E], "smem": E},
//    "params": {"NAME": [values...]}, "constraints": ["E", ...],
//    "lesson": {"situation": "...", "action": "...", "tags": ["op/...", ...]}}
// where each E is an integer expression (core/expr.hpp) of the op's shape symbols and, with
// params, of the parameter names. "params", "constraints" and "lesson" are optional.
//
// Parameters are macros: each configuration of the space becomes one candidate whose source
// starts with `#define NAME value` for every parameter (then `#line 1`, so that compiler
// messages keep the reply's line numbers), and whose launch rule has the values bound. Macros
// rather than template arguments because they need no agreed wrapper: the LLM writes one
// self-contained kernel, and `#if` works on them too.
#include <optional>
#include <string>
#include <vector>

#include "core/candidate.hpp"
#include "core/launch_rule.hpp"
#include "core/op_spec.hpp"
#include "core/param_space.hpp"

namespace hone {

/// A lesson the LLM proposes about its previous measured attempt.
struct LessonProposal {
  std::string situation;
  std::string action;
  std::vector<std::string> tags;
};

struct LlmKernel {
  std::string entry;
  std::string source;
  LaunchRule launch;
  ParamSpace params;  // no params: one kernel
};

struct ParsedReply {
  std::optional<LlmKernel> kernel;
  std::string error;                     // why there is no kernel: what the LLM is told next turn
  std::optional<LessonProposal> lesson;
  std::string lesson_error;              // why the lesson field was not usable, "" otherwise
};

/// The largest source accepted from a reply (bytes): more is not a kernel.
inline constexpr std::size_t kMaxLlmSourceBytes = 64 * 1024;

/// Parses a reply for `op`. Never throws: a reply that is not the object above, lacks a kernel,
/// names an entry its source does not define or has a launch rule that does not parse gives a
/// ParsedReply without a kernel and with the reason.
ParsedReply parse_llm_reply(const std::string& text, const OpSpec& op);

struct LlmRendering {
  std::vector<Candidate> candidates;
  std::string error;  // why there are none
};

/// The candidates of `kernel` at `shape`: one per valid configuration of its parameter space whose
/// launch rule gives a legal launch there, in the space's order, at most `max`; origin "llm".
LlmRendering render_llm_kernel(const OpSpec& op, const LlmKernel& kernel, const Bindings& shape, std::size_t max);

}  // namespace hone
