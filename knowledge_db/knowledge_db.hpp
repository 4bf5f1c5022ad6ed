#pragma once
// hone's SQLite store: tasks, candidates, compiles, validation results, winners and lessons. One
// connection per object; WAL mode and a busy timeout so that several processes may share a file;
// every write is one transaction, so an interrupted job leaves only whole results behind.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "knowledge_db/distill.hpp"
#include "knowledge_db/embedding.hpp"
#include "knowledge_db/lesson.hpp"
#include "knowledge_db/lesson_search.hpp"

namespace hone {

/// A database that cannot be opened, is from a newer hone, or is corrupt. The message names the file.
struct DbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A tuning task: one op at one static shape, one bucket of its dynamic dims, one architecture.
struct TaskRecord {
  std::int64_t id = 0;
  std::string key;                 // unique: derived from all fields below
  std::string op;
  std::string spec_hash;           // OpSpec::content_hash it was tuned against
  nlohmann::json static_dims;      // {"hidden": 4096}
  nlohmann::json buckets;          // {"tokens": [lo, hi]}
  nlohmann::json shape;            // the representative shape it is tuned at (all symbols)
  nlohmann::json scalars;          // float scalars, {"eps": 1e-6}
  std::string arch;                // "sm_90"
  nlohmann::json layers;           // the model layers it serves: ["qwen3-8b/input_layernorm", ...]
};

/// A kernel: source, entry and launch rule; the same candidate may serve many tasks.
struct CandidateRecord {
  std::int64_t id = 0;
  std::string key;                 // unique: SHA-256 of op, entry, source and launch rule
  std::string op;
  std::string origin;              // "reference" | "template" | "llm" | "user"
  std::string variant;             // template variant name, "" otherwise
  nlohmann::json params;           // {"BLOCK": 256, ...}
  std::string entry;
  std::string source;
  nlohmann::json launch;           // LaunchRule::to_json()
  std::int64_t parent = 0;         // the candidate it was derived from (an edit of a winner), 0 when none
};

/// A compile of a candidate for an architecture, with the resource usage ptxas reported.
struct CompileRecord {
  std::int64_t candidate_id = 0;
  std::string arch;
  std::string compiler;            // "nvrtc 13.0"
  bool ok = false;
  std::string log;
  int registers = 0;
  int spill_stores = 0;            // bytes
  int spill_loads = 0;             // bytes
  int shared_bytes = 0;            // static shared memory
  int stack_bytes = 0;             // stack frame (local memory)
  double compile_ms = 0;
  std::string ptx;
  std::string cubin;               // binary
};

/// The outcome of validating (and timing) one candidate for one task on one device.
struct ResultRecord {
  std::int64_t id = 0;
  std::int64_t task_id = 0;
  std::int64_t candidate_id = 0;
  std::string device;              // "emu:<cpu>", "cuda:NVIDIA H200", "none:sm_90"
  std::string verdict;             // "pass" | "fail"
  std::string stage;               // the last stage reached: "static", "reference", "timing", ...
  std::string reason;              // why it failed, "" on pass
  double max_abs_err = 0;
  double time_ms = 0;              // median, 0 when not timed
  double time_min_ms = 0;
  double time_spread = 0;          // (p90 - p10) / median
  int runs = 0;
  std::string timer;               // "cpu" (emu) | "gpu" (device events)
  nlohmann::json detail;           // anything else worth keeping (worst element, seeds, ...)
  std::string created_at;          // set by the database

  /// Marks, in `detail`, the winner's re-timing against the reference after the search: a second
  /// measurement of a candidate already evaluated, never an evaluation of the search.
  static constexpr const char* kRetimingKey = "retimed_against_reference";
  bool is_retiming() const { return detail.is_object() && detail.value(kRetimingKey, false); }
};

struct WinnerRecord {
  std::int64_t task_id = 0;
  std::string device;
  std::int64_t candidate_id = 0;
  std::int64_t result_id = 0;
  double time_ms = 0;
  double baseline_ms = 0;          // the reference kernel's time in the same session
  std::string updated_at;
  double retimed_ms = 0;           // the winner and the baseline timed in turns: 0 until re-timed
  double retimed_baseline_ms = 0;

  /// The times to show and export: the pair timed in turns after the search when there is one
  /// (sharing the machine's state, its ratio is the one to trust), else the search's own.
  bool timed_in_turns() const { return retimed_ms > 0 && retimed_baseline_ms > 0; }
  double shown_ms() const { return timed_in_turns() ? retimed_ms : time_ms; }
  double shown_baseline_ms() const { return timed_in_turns() ? retimed_baseline_ms : baseline_ms; }
};

/// One request of the LLM proposer and what came of it: the exact prompt, the reply, the token
/// usage, and the candidates the reply became. Never the API key.
struct LlmAttemptRecord {
  std::int64_t id = 0;
  std::int64_t task_id = 0;
  int attempt = 0;                 // from 1, within one task's run
  std::string model;
  std::int64_t parent_id = 0;      // the best correct candidate the prompt showed, 0 when none
  nlohmann::json prompt;           // [{"role": ..., "content": ...}, ...] exactly as sent
  std::string reply;               // the reply's text as received ("" when the request failed)
  std::string finish_reason;       // "stop", "length", ...
  std::string outcome;             // "candidates" | "unusable" | "request_failed"
  std::string reason;              // why it gave no candidate, "" when it did
  std::vector<std::int64_t> lessons_used;
  std::int64_t lesson_id = 0;      // the lesson its proposal became, 0 when none
  std::string lesson_note;         // why a proposed lesson was not kept, "" otherwise
  int requests = 0;                // HTTP requests, retries included
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  double latency_ms = 0;
  std::vector<std::int64_t> candidate_ids;
  std::string created_at;          // set by the database
};

class KnowledgeDb {
 public:
  /// Opens (creating and migrating as needed) the database at `file`. Throws DbError when the
  /// file is not a hone database, is corrupt, or was written by a newer hone (its schema version
  /// is above schema_version()).
  explicit KnowledgeDb(const std::filesystem::path& file);
  ~KnowledgeDb();
  KnowledgeDb(const KnowledgeDb&) = delete;
  KnowledgeDb& operator=(const KnowledgeDb&) = delete;

  static int schema_version();
  const std::filesystem::path& file() const;

  /// Inserts the task, or finds it by key; returns its id (also set in the record).
  std::int64_t upsert_task(TaskRecord& task);
  std::optional<TaskRecord> task(std::int64_t id) const;
  std::vector<TaskRecord> tasks() const;

  std::int64_t upsert_candidate(CandidateRecord& candidate);
  std::optional<CandidateRecord> candidate(std::int64_t id) const;

  /// Inserts or replaces the compile of (candidate, arch, compiler).
  void put_compile(const CompileRecord& compile);
  std::optional<CompileRecord> compile(std::int64_t candidate_id, const std::string& arch) const;

  std::int64_t add_result(ResultRecord& result);
  /// The newest result for (task, candidate, device), if any: what resume uses to skip work.
  std::optional<ResultRecord> latest_result(std::int64_t task_id, std::int64_t candidate_id, const std::string& device) const;
  std::vector<ResultRecord> results_for_task(std::int64_t task_id) const;

  /// Sets the winner of (task, device) when there is none or `winner` is faster; returns whether
  /// it became the winner. A tie keeps the holder. Throws std::invalid_argument when time_ms is
  /// not a positive number (an untimed result cannot win).
  bool offer_winner(const WinnerRecord& winner);
  /// Records a re-timing of the winner against the baseline in turns, in one session (the figures
  /// a user compares; the winner stays chosen by its evaluation's time). Returns false when
  /// (task, device) has another winner by now.
  bool retime_winner(std::int64_t task_id, const std::string& device, std::int64_t candidate_id, double time_ms,
                     double baseline_ms);
  /// Makes `winner` the winner of (task, device), whatever holds it, with its re-timed figures:
  /// a baseline that the search's winner did not beat in turns takes the entry back.
  void set_winner(const WinnerRecord& winner);

  /// Records that a task finished on a device under a plan (a digest of what decides the search),
  /// with a summary of how it went.
  void mark_task_done(std::int64_t task_id, const std::string& device, const std::string& plan,
                      const nlohmann::json& summary);
  /// The summary recorded when the task finished under this plan, if it did.
  std::optional<nlohmann::json> task_done(std::int64_t task_id, const std::string& device, const std::string& plan) const;
  std::optional<WinnerRecord> winner(std::int64_t task_id, const std::string& device) const;
  std::vector<WinnerRecord> winners() const;

  /// Stores the text of the op spec with that content hash (tasks name specs by hash).
  void put_op_spec(const std::string& hash, const std::string& op, const nlohmann::json& spec);
  /// The spec's text, null when only its hash is known; nullopt when the hash is unknown.
  std::optional<nlohmann::json> op_spec(const std::string& hash) const;
  /// Every device results were measured on, by name ("emu:...", "cuda:NVIDIA H200").
  std::vector<std::string> devices() const;
  /// Records what no kernel on `device` can beat (its measured copy bandwidth, its peaks, ...),
  /// replacing what an earlier job recorded.
  void put_device_limits(const std::string& device, const nlohmann::json& limits);
  /// The limits last recorded for `device`; nullopt when none were.
  std::optional<nlohmann::json> device_limits(const std::string& device) const;

  /// Adds a lesson; throws InputError unless it names a situation and an action and has valid
  /// tags. Its local embedding is stored always, and `vectors` (from an embeddings endpoint)
  /// with it. Returns the id (also set in the record).
  std::int64_t add_lesson(LessonRecord& lesson, const std::vector<Embedding>& vectors = {});
  std::optional<LessonRecord> lesson(std::int64_t id) const;
  /// Lessons by id; superseded ones only when asked.
  std::vector<LessonRecord> lessons(bool include_superseded = false) const;
  void put_lesson_vector(std::int64_t lesson_id, const Embedding& vector);
  std::vector<LessonRecord> lessons_without_vector(const std::string& model) const;
  /// Hybrid retrieval (lesson_search.hpp). Without a query vector, the query's local embedding
  /// is used.
  std::vector<LessonHit> search_lessons(const LessonQuery& query, const std::optional<Embedding>& query_vector = {}) const;
  /// Mines the results for lessons, in one transaction (distill.hpp).
  DistillReport distill_lessons(const DistillOptions& options = {});

  /// Stores an LLM attempt with its candidate links; returns the id (also set in the record).
  std::int64_t add_llm_attempt(LlmAttemptRecord& attempt);
  /// A task's LLM attempts, oldest first.
  std::vector<LlmAttemptRecord> llm_attempts(std::int64_t task_id) const;
  /// The attempt whose reply became this candidate, if one did.
  std::optional<LlmAttemptRecord> llm_attempt_for_candidate(std::int64_t candidate_id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hone
