#pragma once
// What the LLM is told about its earlier attempts: one short note per attempt. The stage and
// reason of a static, reference, consistency or timing failure (compiler errors trimmed to the
// lines about its own source, the worst mismatching element); for the hidden tests only that they
// failed: the sizes, values and seeds they use stay hidden, or the next kernel would be fitted to
// them. The full reason is in the database.
#include <string>

#include "core/candidate.hpp"
#include "knowledge_db/knowledge_db.hpp"

namespace hone {

/// The note on attempt `attempt`, which became `candidate` and was validated as `result`.
std::string result_note(int attempt, const Candidate& candidate, const ResultRecord& result, double reference_ms);

/// The note on an attempt whose reply gave no kernel, or whose request failed.
std::string reply_note(int attempt, const std::string& reason);

/// A compiler's log cut to what concerns the kernel's own source: diagnostics that name
/// `source_name` (NVRTC calls it <entry>.cu, the emu build kernel.cu) and the lines that follow
/// each, at most `max_chars`. Messages about other files (a header the source should not have
/// reached) are left out, so a compile error cannot carry another file's text to the LLM.
std::string compiler_excerpt(const std::string& log, const std::string& entry, std::size_t max_chars = 1500);

}  // namespace hone
