#pragma once
// Distillation: turns the results into lessons, in the background of tuning (at the end of a
// job, or `hone lessons distill`). It writes a lesson per parameter effect, refreshes its own
// lessons when the evidence grows, supersedes those the newer results contradict, and merges
// near-duplicate lessons.
#include <string>

#include "knowledge_db/lesson.hpp"
#include "knowledge_db/param_effects.hpp"

namespace hone {

class SqliteConnection;

struct DistillReport {
  int effects = 0;     // parameter effects found
  int written = 0;     // new lessons
  int refreshed = 0;   // lessons kept, with their evidence brought up to date
  int superseded = 0;  // lessons the results now contradict (replaced or not)
  int merged = 0;      // near-duplicates folded into another lesson
  std::string summary() const;
};

/// The lesson an effect teaches: situation (op, variant, shape range, device), action (the value
/// and its margin), tags, confidence, claim and evidence.
LessonRecord lesson_for_effect(const ParamEffect& effect);

namespace sql {
/// Runs inside the caller's transaction.
DistillReport distill_lessons(SqliteConnection& db, const DistillOptions& options);
}  // namespace sql

}  // namespace hone
