#pragma once
// Rows of the lessons tables: lessons, their evidence and their vectors (the FTS5 index follows
// by triggers). Writers expect to run inside the caller's transaction.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "knowledge_db/embedding.hpp"
#include "knowledge_db/lesson.hpp"

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

/// Validates (InputError) and inserts the lesson with its evidence and vectors; sets lesson.id.
std::int64_t add_lesson(SqliteConnection& db, LessonRecord& lesson, const std::vector<Embedding>& vectors);
/// Rewrites text, tags, confidence, claim and evidence of an existing lesson.
void update_lesson(SqliteConnection& db, const LessonRecord& lesson);
/// Marks the lesson superseded, by `by` when it is not 0.
void supersede_lesson(SqliteConnection& db, std::int64_t id, std::int64_t by);

std::optional<LessonRecord> lesson(SqliteConnection& db, std::int64_t id);
/// Lessons by id; superseded ones only when asked.
std::vector<LessonRecord> lessons(SqliteConnection& db, bool include_superseded);

/// Inserts or replaces the lesson's vector of that model.
void put_lesson_vector(SqliteConnection& db, std::int64_t lesson_id, const Embedding& vector);
/// Every lesson's vector of that model, by lesson id.
std::map<std::int64_t, Embedding> lesson_vectors(SqliteConnection& db, const std::string& model);
/// Lessons (superseded ones too) with no vector of that model.
std::vector<LessonRecord> lessons_without_vector(SqliteConnection& db, const std::string& model);

}  // namespace hone::sql
