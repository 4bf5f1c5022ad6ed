#pragma once
// Escaping text for XML and HTML (JUnit files, the report).
#include <string>

namespace hone {

/// & < > " ' as entities; control characters other than tab and newline, which XML 1.0 does not
/// allow, as '?'.
std::string xml_escape(const std::string& text);

}  // namespace hone
