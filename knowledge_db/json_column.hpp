#pragma once
// JSON fields are stored as TEXT: readable with the sqlite3 shell and queryable with json_extract.
#include <string>

#include <nlohmann/json.hpp>

namespace hone {

class SqliteStatement;

/// The compact text of `value`. Invalid UTF-8 in its strings (a kernel's stray bytes in a
/// detail field) is replaced rather than failing the whole write.
std::string json_to_text(const nlohmann::json& value);

/// Parses a TEXT column; throws DbError naming the file and the column when it is not JSON.
nlohmann::json column_json(const SqliteStatement& row, int col);

}  // namespace hone
