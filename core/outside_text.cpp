#include "core/outside_text.hpp"

namespace hone {

std::string redact(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) text.replace(at, secret.size(), "***");
  return text;
}

std::string snippet(const std::string& body, std::size_t max_chars) {
  std::string s = body.substr(0, max_chars);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return body.size() > max_chars ? s + "..." : s;
}

}  // namespace hone
