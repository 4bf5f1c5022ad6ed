#pragma once
// Reading JSON files and fields so that every problem names the file and the field.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace hone {

/// Parses a JSON file; throws InputError("<file>: ...") when it cannot be read or parsed.
nlohmann::json read_json_file(const std::filesystem::path& file);

/// Reads a whole text file; throws InputError naming the file when it cannot be read.
std::string read_text_file(const std::filesystem::path& file);

/// Writes a file atomically (temporary file, then rename), so a crash leaves no half-written file.
void write_file_atomically(const std::filesystem::path& file, const std::string& content);

/// The field `key` of object `j`, required; throws InputError naming file, path and problem.
const nlohmann::json& require_field(const nlohmann::json& j, const std::string& key, const std::string& file,
                                    const std::string& where);

}  // namespace hone
