#include "tuner/db_records.hpp"

namespace hone {

CandidateRecord candidate_record(const Candidate& c) {
  CandidateRecord r;
  r.key = c.key();
  r.op = c.op;
  r.origin = c.origin;
  r.variant = c.variant;
  r.params = c.params;
  r.entry = c.entry;
  r.source = c.source;
  r.launch = c.launch.to_json();
  return r;
}

Candidate candidate_from_record(const CandidateRecord& r) {
  Candidate c;
  c.op = r.op;
  c.origin = r.origin;
  c.variant = r.variant;
  c.params = r.params.get<Config>();
  c.entry = r.entry;
  c.source = r.source;
  c.launch = parse_launch_rule(r.launch, "database candidate " + std::to_string(r.id), "launch");
  return c;
}

std::string candidate_record_label(const CandidateRecord& r) {
  return r.origin == "template" ? r.variant + " " + config_to_string(r.params.get<Config>()) : r.origin + " " + r.entry;
}

CompileRecord compile_record(std::int64_t candidate_id, const std::string& arch, const std::string& entry,
                             const KernelBuild& b) {
  CompileRecord r;
  r.candidate_id = candidate_id;
  r.arch = arch;
  r.compiler = nvrtc_identity();
  r.ok = b.nvrtc.ok;
  r.log = b.nvrtc.log;
  r.compile_ms = b.nvrtc.compile_ms;
  r.ptx = b.nvrtc.ptx;
  r.cubin = b.nvrtc.cubin;
  if (auto it = b.nvrtc.usage.find(entry); it != b.nvrtc.usage.end()) {
    r.registers = it->second.registers;
    r.spill_stores = it->second.spill_stores;
    r.spill_loads = it->second.spill_loads;
    r.shared_bytes = it->second.shared_bytes;
    r.stack_bytes = it->second.stack_bytes;
  }
  return r;
}

NvrtcResult nvrtc_result_from_record(const CompileRecord& c, const std::string& entry) {
  NvrtcResult r;
  r.ok = c.ok;
  r.log = c.log;
  r.ptx = c.ptx;
  r.cubin = c.cubin;
  r.compile_ms = c.compile_ms;
  if (c.ok) r.usage[entry] = {c.registers, c.spill_stores, c.spill_loads, c.shared_bytes, c.stack_bytes};
  return r;
}

ResultRecord result_record(std::int64_t task_id, std::int64_t candidate_id, const std::string& device, const Verdict& v) {
  ResultRecord r;
  r.task_id = task_id;
  r.candidate_id = candidate_id;
  r.device = device;
  r.verdict = v.pass ? "pass" : "fail";
  r.stage = v.stage;
  r.reason = v.reason;
  r.max_abs_err = v.max_abs_err;
  r.time_ms = v.timing.median_ms;
  r.time_min_ms = v.timing.min_ms;
  r.time_spread = v.timing.spread;
  r.runs = v.timing.runs;
  r.timer = v.timing.timer;
  r.detail = v.detail;
  if (!v.worst.buffer.empty())
    r.detail["worst"] = {{"buffer", v.worst.buffer}, {"index", v.worst.index}, {"got", v.worst.got}, {"expected", v.worst.expected}};
  return r;
}

TaskRecord task_record(const Task& t, const std::string& spec_hash) {
  TaskRecord r;
  r.op = t.op;
  r.spec_hash = spec_hash;
  r.static_dims = t.static_dims;
  for (const auto& [k, b] : t.buckets) r.buckets[k] = {b.lo, b.hi};
  r.shape = t.shape;
  r.scalars = t.scalars;
  r.arch = t.arch;
  r.layers = t.layers;
  r.key = t.key();
  return r;
}

}  // namespace hone
