#pragma once
// Rows of the candidates table. Writers expect to run inside the caller's transaction.
#include <cstdint>
#include <optional>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

/// Inserts the candidate unless its key exists; returns the id either way and sets candidate.id.
std::int64_t upsert_candidate(SqliteConnection& db, CandidateRecord& candidate);
std::optional<CandidateRecord> candidate(SqliteConnection& db, std::int64_t id);

}  // namespace hone::sql
