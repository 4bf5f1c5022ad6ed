#pragma once
// Conversions between the tuner's values (candidates, builds, verdicts, tasks) and the rows the
// knowledge_db stores.
#include <cstdint>
#include <string>

#include "core/candidate.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "runtime/kernel_build.hpp"
#include "tuner/task.hpp"
#include "validator/verdict.hpp"

namespace hone {

CandidateRecord candidate_record(const Candidate& c);
/// Throws InputError when the stored launch rule does not parse.
Candidate candidate_from_record(const CandidateRecord& r);
/// "template rmsnorm_row_block BLOCK=256,VEC=8" for a stored candidate.
std::string candidate_record_label(const CandidateRecord& r);

CompileRecord compile_record(std::int64_t candidate_id, const std::string& arch, const std::string& entry,
                             const KernelBuild& build);
/// What a stored compile says, as NVRTC's result for `entry`.
NvrtcResult nvrtc_result_from_record(const CompileRecord& r, const std::string& entry);

ResultRecord result_record(std::int64_t task_id, std::int64_t candidate_id, const std::string& device, const Verdict& v);

TaskRecord task_record(const Task& t, const std::string& spec_hash);

}  // namespace hone
