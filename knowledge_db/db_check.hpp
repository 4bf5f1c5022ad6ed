#pragma once
// `hone db check`: is a database whole? SQLite's integrity_check, the schema version, foreign
// keys, the lesson index, and rows whose references no foreign key guards.
#include <filesystem>
#include <string>
#include <vector>

namespace hone {

struct DbCheckReport {
  int version = 0;                       // PRAGMA user_version
  std::vector<std::string> problems;     // each a line for the user; none when the file is whole
  std::vector<std::string> notes;        // facts that are not problems (an older schema)
  bool ok() const { return problems.empty(); }
};

/// Checks the file without changing its contents. Throws DbError (naming the file) when it does
/// not exist, is not a hone database, or is from a newer hone: those are not problems of a hone
/// database, they are the wrong file.
DbCheckReport check_database(const std::filesystem::path& file);

}  // namespace hone
