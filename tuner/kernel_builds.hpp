#pragma once
// Compiling candidates for a job: in parallel on a thread pool ahead of the device, reusing the
// database's compile cache, and recording new compiles as they come.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/candidate.hpp"
#include "core/op_spec.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "runtime/kernel_build.hpp"

namespace hone {

struct BuildJob {
  const Candidate* candidate = nullptr;
  std::int64_t candidate_id = 0;
  KernelBuild build;  // filled by build_kernels
};

/// Builds every job (NVRTC for `arch`, plus the device's own build), `threads` at a time
/// (0: one per core); untrusted candidates (llm, user) in a sandboxed compile process each
/// (validator/isolated_build.hpp), after the caller has held them to the source policy. A
/// compile the database knows for this NVRTC is not repeated; new ones
/// are stored.
void build_kernels(const OpSpec& op, std::vector<BuildJob>& jobs, const std::string& arch, const std::string& device_kind,
                   unsigned threads, KnowledgeDb& db);

/// The threads build_kernels uses for `requested` (0: one per core).
unsigned build_threads(unsigned requested);

}  // namespace hone
