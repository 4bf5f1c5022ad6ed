#pragma once
// hone's database schema as an ordered list of migrations. The version a file is at lives in
// PRAGMA user_version, and PRAGMA application_id marks the file as hone's.
#include <cstdint>
#include <string>
#include <vector>

namespace hone {

class SqliteConnection;

/// 'hone' in ASCII: tells a hone database apart from any other SQLite file.
inline constexpr std::int32_t kHoneApplicationId = 0x686f6e65;

/// hone's migrations, oldest first: step i takes a database from version i to version i + 1.
/// Steps are only ever appended; a released step never changes.
const std::vector<std::string>& schema_migrations();

/// The version this hone writes: the number of migrations.
int latest_schema_version();

/// Refuses, with a DbError naming the file, anything but an empty file or a hone database at
/// `known_version` or below: a file that is not SQLite, another program's SQLite database, or one
/// written by a newer hone. Only reads the file.
void check_hone_database(SqliteConnection& db, int known_version);

/// Refuses, with a DbError naming the file, a database whose pages are damaged (PRAGMA
/// quick_check): a torn copy, a truncated file, bytes overwritten. Only reads the file.
void check_not_corrupt(SqliteConnection& db);

/// Applies the steps the database lacks, each with its version bump in one transaction, so a
/// failed step leaves the database at the previous version. Safe to race with another process
/// migrating the same file.
void migrate(SqliteConnection& db, const std::vector<std::string>& steps);

}  // namespace hone
