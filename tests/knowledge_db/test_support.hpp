#pragma once
// Shared by the knowledge_db tests: a fresh directory per test and small valid records.
#include <string>

#include "knowledge_db/knowledge_db.hpp"
#include "support/file_bytes.hpp"
#include "support/temp_dir.hpp"

namespace hone::test {

inline TaskRecord make_task(const std::string& key) {
  TaskRecord t;
  t.key = key;
  t.op = "rmsnorm";
  t.spec_hash = "spec-" + key;
  t.static_dims = {{"hidden", 4096}};
  t.buckets = {{"tokens", {1, 16}}};
  t.shape = {{"hidden", 4096}, {"tokens", 8}};
  t.scalars = {{"eps", 1e-6}};
  t.arch = "sm_90";
  t.layers = {"qwen3-8b/input_layernorm", "qwen3-8b/post_attention_layernorm"};
  return t;
}

inline CandidateRecord make_candidate(const std::string& key) {
  CandidateRecord c;
  c.key = key;
  c.op = "rmsnorm";
  c.origin = "template";
  c.variant = "row_per_block";
  c.params = {{"BLOCK", 256}, {"VEC", 4}};
  c.entry = "rmsnorm_kernel";
  c.source = "extern \"C\" __global__ void rmsnorm_kernel() { /* " + key + " */ }\n";
  c.launch = {{"grid", {"tokens", 1, 1}}, {"block", {"BLOCK", 1, 1}}, {"smem", "0"}};
  return c;
}

inline ResultRecord make_result(std::int64_t task_id, std::int64_t candidate_id, const std::string& device,
                                double time_ms) {
  ResultRecord r;
  r.task_id = task_id;
  r.candidate_id = candidate_id;
  r.device = device;
  r.verdict = "pass";
  r.stage = "timing";
  r.max_abs_err = 0.0078125;
  r.time_ms = time_ms;
  r.time_min_ms = time_ms * 0.95;
  r.time_spread = 0.03;
  r.runs = 50;
  r.timer = "gpu";
  r.detail = {{"seeds", {1, 2, 3}}};
  return r;
}

}  // namespace hone::test
