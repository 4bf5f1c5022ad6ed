#pragma once
// Commands that read a database never create one: a mistyped --db is an error, not an empty answer.
#include <memory>
#include <string>

#include "knowledge_db/knowledge_db.hpp"

namespace hone::cli {

/// Opens `file`; throws InputError "<file>: no such database" when it is not there.
std::unique_ptr<KnowledgeDb> open_existing_db(const std::string& file);

}  // namespace hone::cli
