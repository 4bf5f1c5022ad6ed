#include "knowledge_db/lesson.hpp"

#include <cctype>
#include <cmath>
#include <sstream>

#include "core/input_error.hpp"

namespace hone {

namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

std::string tag_problem(const std::string& tag) {
  if (tag.empty()) return "is empty";
  if (tag.front() == '/' || tag.back() == '/' || tag.find("//") != std::string::npos)
    return "has an empty path segment";
  for (char c : tag) {
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) return "contains a space or a comma";
  }
  return "";
}

void validate_lesson(const LessonRecord& l) {
  // A lesson that cannot be acted on is noise in every later search.
  if (blank(l.situation) && blank(l.action)) throw InputError("a lesson needs a situation and an action; both are empty");
  if (blank(l.situation)) throw InputError("a lesson needs a situation (when it applies); it is empty");
  if (blank(l.action)) throw InputError("a lesson needs an action (what to do); it is empty");
  for (const auto& t : l.tags) {
    if (auto p = tag_problem(t); !p.empty()) throw InputError("tag '" + t + "' " + p);
  }
  if (!(std::isfinite(l.confidence) && l.confidence >= 0 && l.confidence <= 1))
    throw InputError("a lesson's confidence must be within 0..1, got " + std::to_string(l.confidence));
  if (l.status != "active" && l.status != "superseded")
    throw InputError("a lesson's status is 'active' or 'superseded', got '" + l.status + "'");
}

std::vector<std::string> split_tags(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto b = item.find_first_not_of(" \t");
    auto e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

bool tag_has_prefix(const std::string& tag, const std::string& prefix) {
  if (prefix.empty()) return true;
  std::string p = prefix.back() == '/' ? prefix.substr(0, prefix.size() - 1) : prefix;
  return tag == p || (tag.size() > p.size() && tag.compare(0, p.size(), p) == 0 && tag[p.size()] == '/');
}

std::string lesson_text(const LessonRecord& l) {
  std::string text = l.situation + "\n" + l.action;
  // Tags read as words: "technique/vectorized-loads" -> "technique vectorized-loads".
  for (const auto& t : l.tags) {
    text += "\n";
    for (char c : t) text += c == '/' ? ' ' : c;
  }
  return text;
}

}  // namespace hone
