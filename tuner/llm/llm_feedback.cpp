#include "tuner/llm/llm_feedback.hpp"

#include <fmt/format.h>

#include <sstream>
#include <vector>

namespace hone {

namespace {

bool about_hidden_tests(const ResultRecord& r) {
  // A crash or a broken input during the hidden tests is reported by another stage, naming it.
  return r.stage == "hidden" || r.reason.find("hidden") != std::string::npos;
}

std::string one_line(std::string s, std::size_t max) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s.size() > max ? s.substr(0, max) + " [...]" : s;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::string compiler_excerpt(const std::string& log, const std::string& entry, std::size_t max_chars) {
  const std::vector<std::string> own = {entry + ".cu", "kernel.cu"};
  std::istringstream in(log);
  std::string out, line;
  bool keep = false;  // inside a diagnostic about the kernel's own source
  while (std::getline(in, line)) {
    if (starts_with(line, "nvrtc: ") || starts_with(line, "emu: ")) line = line.substr(line.find(' ') + 1);
    bool names_own = false;
    for (const auto& f : own) names_own |= starts_with(line, f + "(") || starts_with(line, f + ":");
    // A diagnostic line starts with a file name; the lines after it (the source line, the caret,
    // notes without a location) belong to it.
    const bool starts_diagnostic = names_own || line.find(": error") != std::string::npos ||
                                   line.find(": warning") != std::string::npos || line.find(": note") != std::string::npos ||
                                   starts_with(line, "In file included") || starts_with(line, "/");
    if (starts_diagnostic) keep = names_own;
    if (keep && line.find("warning") == std::string::npos) out += line + "\n";
    if (out.size() > max_chars) return out.substr(0, max_chars) + "[...]\n";
  }
  if (out.empty()) return "(the compiler's messages concern no line of your source)";
  return out;
}

std::string result_note(int attempt, const Candidate& c, const ResultRecord& r, double reference_ms) {
  std::string head = fmt::format("attempt {} ({}", attempt, c.entry);
  if (!c.params.empty()) head += " " + config_to_string(c.params);
  head += "): ";
  if (r.verdict == "pass") {
    if (r.time_ms <= 0) return head + "passed the static checks";
    std::string s = head + fmt::format("correct, {:.4f} ms", r.time_ms);
    if (reference_ms > 0) s += fmt::format(" ({:.2f}x the reference)", reference_ms / r.time_ms);
    return s;
  }
  if (about_hidden_tests(r)) return head + "failed the hidden tests (their sizes and values are not shown)";
  if (r.stage == "static" && starts_with(r.reason, "does not compile: "))
    return head + "does not compile:\n" + compiler_excerpt(r.reason.substr(18), c.entry);
  std::string s = head + "failed at the " + r.stage + " stage: " + one_line(r.reason, 600);
  if (r.detail.is_object() && r.detail.contains("worst") && r.stage != "static") {
    const auto& w = r.detail["worst"];
    s += fmt::format(" (worst element {}{}: got {}, expected {})", w.value("buffer", ""), w.value("index", ""),
                     w.value("got", 0.0), w.value("expected", 0.0));
  }
  return s;
}

std::string reply_note(int attempt, const std::string& reason) {
  return fmt::format("attempt {}: no kernel was tried: {}", attempt, one_line(reason, 600));
}

}  // namespace hone
