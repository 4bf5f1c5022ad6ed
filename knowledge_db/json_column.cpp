#include "knowledge_db/json_column.hpp"

#include "knowledge_db/sqlite_connection.hpp"

namespace hone {

std::string json_to_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json column_json(const SqliteStatement& row, int col) {
  try {
    return nlohmann::json::parse(row.column_text(col));
  } catch (const nlohmann::json::parse_error& e) {
    throw DbError(row.connection().name() + ": column " + row.column_name(col) + " is not valid JSON: " + e.what());
  }
}

}  // namespace hone
