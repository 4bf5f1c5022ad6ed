#pragma once
// Text from outside hone (a server's answer) made fit for an error message: cut short on one
// line, and never carrying a secret even when the server echoes the request back.
#include <cstddef>
#include <string>

namespace hone {

/// `text` with every occurrence of `secret` replaced by "***" (no-op for an empty secret).
std::string redact(std::string text, const std::string& secret);

/// The first `max_chars` characters of `body` on one line, "..." when there was more.
std::string snippet(const std::string& body, std::size_t max_chars);

}  // namespace hone
