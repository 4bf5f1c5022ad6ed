#pragma once
// A lesson: a short, actionable takeaway that pairs a situation with an action, tagged with
// hierarchical paths ("op/gemv", "arch/sm_90", "technique/vectorized-loads", "shape/M<=4") and
// backed by evidence (the results it was learned from).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone {

struct LessonRecord {
  std::int64_t id = 0;
  std::string situation;            // when it applies: "gemv, M<=4, K>=4096 on sm_90"
  std::string action;               // what to do: "one warp per output row with 16-byte loads"
  std::vector<std::string> tags;    // paths, "op/gemv"
  double confidence = 0.5;          // 0..1
  std::string status = "active";    // "active" | "superseded"
  std::int64_t superseded_by = 0;   // the lesson that replaced it, 0 when none (or none recorded)
  std::string origin = "user";      // "user" | "distilled" | "llm"
  std::string key;                  // the claim a distilled lesson makes, "" for others
  nlohmann::json claim;             // its structured form (op, variant, param, value, device), null for others
  std::vector<std::int64_t> evidence;  // result ids
  std::string created_at, updated_at;  // set by the database
};

/// Throws InputError unless the lesson names both a situation and an action, its tags are
/// valid paths, its confidence is within 0..1 and its status is known.
void validate_lesson(const LessonRecord& lesson);

/// A tag is a path of non-empty segments separated by '/', with no spaces or commas:
/// "op/gemv", "shape/M<=4". Returns the problem, or "" when it is valid.
std::string tag_problem(const std::string& tag);

/// Splits "a/b,c/d" into tags; empty items are dropped. Does not validate.
std::vector<std::string> split_tags(const std::string& list);

/// Whether `tag` is `prefix` or lies below it: "op/gemv" and "op/gemv/split-k" match "op/gemv"
/// and "op", "op/gemv2" does not match "op/gemv". Segments match whole, never in part.
bool tag_has_prefix(const std::string& tag, const std::string& prefix);

/// The text an embedding is computed from: situation, action and tags.
std::string lesson_text(const LessonRecord& lesson);

}  // namespace hone
