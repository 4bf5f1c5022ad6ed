#include "cli/existing_db.hpp"

#include <filesystem>

#include "core/input_error.hpp"

namespace hone::cli {

std::unique_ptr<KnowledgeDb> open_existing_db(const std::string& file) {
  if (!std::filesystem::exists(file)) throw InputError(file + ": no such database");
  return std::make_unique<KnowledgeDb>(file);
}

}  // namespace hone::cli
