#pragma once
// Rows of the compiles table: the compile cache. Writers expect to run inside the caller's
// transaction.
#include <cstdint>
#include <optional>
#include <string>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

/// Inserts, or replaces, the compile of (candidate, arch, compiler).
void put_compile(SqliteConnection& db, const CompileRecord& compile);
/// The most recently stored compile of the candidate for the architecture, by any compiler.
std::optional<CompileRecord> compile(SqliteConnection& db, std::int64_t candidate_id, const std::string& arch);

}  // namespace hone::sql
