#pragma once
// The allow-list for untrusted source (written by an LLM, or handed to `hone check`): checked
// before anything compiles it. Templates and references are hone's own and trusted.
#include <string>

#include "core/candidate.hpp"
#include "validator/verdict.hpp"

namespace hone {

/// Whether a candidate's origin is untrusted ("llm", "user").
bool is_untrusted(const Candidate& c);

/// The first thing the source uses that untrusted code may not, or "" when it keeps to the
/// allow-list: an #include outside the CUDA headers, inline assembly under emulation, dynamic
/// parallelism, __device__ or __managed__ variables at namespace scope (state that survives
/// between launches), or a host function (files, processes, sockets, the environment, memory).
std::string untrusted_source_violation(const std::string& source, const std::string& device_kind);

/// Stage 1's policy part as a verdict: pass for trusted candidates and clean untrusted ones.
Verdict source_policy_verdict(const Candidate& c, const std::string& device_kind);

}  // namespace hone
