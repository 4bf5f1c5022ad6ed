// Version 2 of the schema: devices, op specs by content hash, candidates.parent, lessons. A
// version-1 file, as an earlier hone wrote it, must come through the migration with every row.
#include <doctest/doctest.h>

#include "knowledge_db/schema.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

// A database exactly as hone's first schema left it, with one row in every table.
void write_version_1(const std::filesystem::path& file) {
  SqliteConnection raw(file);
  raw.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON");
  migrate(raw, {schema_migrations().front()});
  raw.exec(R"sql(
    INSERT INTO tasks (id, key, op, spec_hash, static_dims, buckets, shape, scalars, arch, layers)
      VALUES (7, 'task-a', 'rmsnorm', 'abc123', '{"hidden":4096}', '{"tokens":[1,16]}', '{"hidden":4096,"tokens":16}',
              '{"eps":1e-06}', 'sm_90', '["qwen3-8b/input_layernorm"]');
    INSERT INTO candidates (id, key, op, origin, variant, params, entry, source, launch)
      VALUES (3, 'cand-a', 'rmsnorm', 'template', 'row_per_block', '{"BLOCK":256}', 'k', 'src', '{}');
    INSERT INTO compiles (candidate_id, arch, compiler, ok, log, registers, spill_stores, spill_loads, shared_bytes,
                          stack_bytes, compile_ms, ptx, cubin)
      VALUES (3, 'sm_90', 'nvrtc 13.0', 1, '', 32, 0, 0, 0, 0, 12.5, 'ptx', x'00ff');
    INSERT INTO results (id, task_id, candidate_id, device, verdict, stage, reason, max_abs_err, time_ms, time_min_ms,
                         time_spread, runs, timer, detail)
      VALUES (11, 7, 3, 'cuda:NVIDIA H200', 'pass', 'timing', '', 0.01, 0.25, 0.24, 0.02, 50, 'gpu', '{}');
    INSERT INTO winners (task_id, device, candidate_id, result_id, time_ms, baseline_ms)
      VALUES (7, 'cuda:NVIDIA H200', 3, 11, 0.25, 0.5);
  )sql");
  REQUIRE(raw.query_int("PRAGMA user_version") == 1);
}

}  // namespace

TEST_CASE("schema: a version-1 database migrates to the latest version and keeps every row") {
  test::TempDir dir;
  auto file = dir / "v1.db";
  write_version_1(file);
  KnowledgeDb db(file);
  SqliteConnection raw(file);
  CHECK(raw.query_int("PRAGMA user_version") == KnowledgeDb::schema_version());
  CHECK(raw.query_int("PRAGMA application_id") == kHoneApplicationId);

  auto task = db.task(7);
  REQUIRE(task);
  CHECK(task->key == "task-a");
  auto candidate = db.candidate(3);
  REQUIRE(candidate);
  CHECK(candidate->params == nlohmann::json{{"BLOCK", 256}});
  CHECK(candidate->parent == 0);
  auto compile = db.compile(3, "sm_90");
  REQUIRE(compile);
  CHECK(compile->cubin == std::string("\x00\xff", 2));
  auto result = db.latest_result(7, 3, "cuda:NVIDIA H200");
  REQUIRE(result);
  CHECK(result->id == 11);
  auto winner = db.winner(7, "cuda:NVIDIA H200");
  REQUIRE(winner);
  CHECK(winner->result_id == 11);

  // The new lookup tables were filled from the rows that were there.
  CHECK(db.devices() == std::vector<std::string>{"cuda:NVIDIA H200"});
  CHECK(raw.query_int("SELECT count(*) FROM devices WHERE name = 'cuda:NVIDIA H200' AND kind = 'cuda'") == 1);
  auto spec = db.op_spec("abc123");
  REQUIRE(spec);
  CHECK(spec->is_null());  // known by hash; its text was never stored
  CHECK(db.lessons().empty());
}

TEST_CASE("schema: the latest version has the lesson, device and op spec tables") {
  test::TempDir dir;
  { KnowledgeDb db(dir / "hone.db"); }
  SqliteConnection raw(dir / "hone.db");
  for (const char* table : {"devices", "op_specs", "lessons", "lesson_evidence", "lesson_vectors", "lessons_fts"}) {
    CAPTURE(table);
    auto row = raw.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
    row.bind(1, std::string(table));
    REQUIRE(row.step());
    CHECK(row.column_int64(0) == 1);
  }
  CHECK(raw.query_int("SELECT count(*) FROM pragma_table_info('candidates') WHERE name = 'parent'") == 1);
}

TEST_CASE("schema: devices and op specs follow the results and tasks as they are written") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto task = test::make_task("t");
  auto candidate = test::make_candidate("c");
  db.upsert_task(task);
  db.upsert_candidate(candidate);
  CHECK(db.devices().empty());
  for (const char* device : {"emu:AMD EPYC", "cuda:NVIDIA H200", "emu:AMD EPYC"}) {
    auto r = test::make_result(task.id, candidate.id, device, 1.0);
    db.add_result(r);
  }
  CHECK(db.devices() == std::vector<std::string>{"cuda:NVIDIA H200", "emu:AMD EPYC"});
  auto spec = db.op_spec(task.spec_hash);
  REQUIRE(spec);
  CHECK(spec->is_null());
  CHECK_FALSE(db.op_spec("no-such-hash"));

  db.put_op_spec(task.spec_hash, "rmsnorm", {{"op", "rmsnorm"}, {"tolerance", {{"bf16", {0.01, 0.01}}}}});
  CHECK(db.op_spec(task.spec_hash)->at("op") == "rmsnorm");
}

TEST_CASE("schema: a candidate keeps its parent, which must exist") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto parent = test::make_candidate("parent");
  db.upsert_candidate(parent);
  auto child = test::make_candidate("child");
  child.origin = "llm";
  child.parent = parent.id;
  db.upsert_candidate(child);
  CHECK(db.candidate(child.id)->parent == parent.id);
  CHECK(db.candidate(parent.id)->parent == 0);

  auto orphan = test::make_candidate("orphan");
  orphan.parent = parent.id + 1000;
  CHECK_THROWS_AS(db.upsert_candidate(orphan), DbError);
}
