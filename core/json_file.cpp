#include "core/json_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/input_error.hpp"

namespace hone {

std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw input_error(file.string(), "cannot be read (" + std::string(std::strerror(errno)) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json read_json_file(const std::filesystem::path& file) {
  std::string text = read_text_file(file);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("parse error");
    throw input_error(file.string(), "is not valid JSON: " + (pos == std::string::npos ? what : what.substr(pos)));
  }
}

void write_file_atomically(const std::filesystem::path& file, const std::string& content) {
  std::filesystem::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error(file.string(), "cannot be written (" + std::string(std::strerror(errno)) + ")");
    out << content;
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp);
      throw input_error(file.string(), "write failed");
    }
  }
  std::filesystem::rename(tmp, file);
}

const nlohmann::json& require_field(const nlohmann::json& j, const std::string& key, const std::string& file,
                                    const std::string& where) {
  if (!j.is_object()) throw input_error(file, where + " must be an object");
  auto it = j.find(key);
  if (it == j.end()) throw input_error(file, where + " lacks the field '" + key + "'");
  return *it;
}

}  // namespace hone
