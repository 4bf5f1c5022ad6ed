// Merging shards tuned on different machines.
#include <doctest/doctest.h>

#include "core/input_error.hpp"
#include "knowledge_db/db_check.hpp"
#include "knowledge_db/db_merge.hpp"
#include "knowledge_db/schema.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

struct Shard {
  std::int64_t task = 0, fast = 0, slow = 0;
};

// One task ("shared") both shards tuned, with a winner each, and one task of its own.
Shard write_shard(const std::filesystem::path& file, const std::string& name, double shared_ms, const std::string& device) {
  KnowledgeDb db(file);
  Shard s;
  auto shared = test::make_task("shared");
  shared.layers = {name + "/layer"};
  auto own = test::make_task("own-" + name);
  auto a = test::make_candidate("cand-base");
  auto b = test::make_candidate("cand-" + name);
  b.parent = db.upsert_candidate(a);
  db.upsert_candidate(b);
  s.task = db.upsert_task(shared);
  db.upsert_task(own);
  CompileRecord compile;
  compile.candidate_id = b.id;
  compile.arch = "sm_90";
  compile.compiler = "nvrtc 13.0";
  compile.ok = true;
  compile.cubin = "\x7f" "ELF-" + name;
  db.put_compile(compile);
  for (auto [task, candidate, ms] : {std::tuple{shared.id, b.id, shared_ms}, std::tuple{own.id, a.id, 2.0}}) {
    auto r = test::make_result(task, candidate, device, ms);
    db.add_result(r);
    db.offer_winner({task, device, candidate, r.id, ms, 3.0, ""});
  }
  // Only b's job measured the device: the merge keeps its limits whatever the order.
  if (name == "b") db.put_device_limits(device, {{"copy_bandwidth_gbs", 4300.0}});
  LessonRecord l;
  l.situation = "rmsnorm on " + name;
  l.action = "do what " + name + " found";
  l.tags = {"op/rmsnorm"};
  l.evidence = {db.latest_result(shared.id, b.id, device)->id};
  db.add_lesson(l);
  return s;
}

std::int64_t count(const std::filesystem::path& file, const std::string& table) {
  SqliteConnection raw(file);
  return raw.query_int("SELECT count(*) FROM " + table);
}

}  // namespace

TEST_CASE("merge: shards become one database: tasks by key, results appended, the faster winner") {
  test::TempDir dir;
  const std::string h200 = "cuda:NVIDIA H200";
  write_shard(dir / "a.db", "a", 1.0, h200);
  write_shard(dir / "b.db", "b", 0.5, h200);
  const std::string a_before = test::read_bytes(dir / "a.db");
  const std::string b_before = test::read_bytes(dir / "b.db");

  MergeReport report = merge_databases({dir / "a.db", dir / "b.db"}, dir / "all.db");
  CHECK(report.sources == 2);
  CHECK(report.tasks == 3);       // shared, own-a, own-b
  CHECK(report.candidates == 3);  // cand-base (in both), cand-a, cand-b
  CHECK(report.results == 4);
  CHECK(report.lessons == 2);
  CHECK(test::read_bytes(dir / "a.db") == a_before);
  CHECK(test::read_bytes(dir / "b.db") == b_before);

  KnowledgeDb all(dir / "all.db");
  CHECK(all.tasks().size() == 3);
  std::int64_t shared = 0;
  for (const auto& t : all.tasks())
    if (t.key == "shared") {
      shared = t.id;
      CHECK(t.layers == nlohmann::json{"a/layer", "b/layer"});
    }
  auto w = all.winner(shared, h200);
  REQUIRE(w);
  CHECK(w->time_ms == 0.5);  // b's
  auto won = all.candidate(w->candidate_id);
  REQUIRE(won);
  CHECK(won->key == "cand-b");
  CHECK(all.candidate(won->parent)->key == "cand-base");
  auto result = all.latest_result(shared, w->candidate_id, h200);
  REQUIRE(result);
  CHECK(result->id == w->result_id);
  CHECK(all.winners().size() == 3);
  REQUIRE(all.device_limits(h200));
  CHECK(all.device_limits(h200)->at("copy_bandwidth_gbs") == 4300.0);
  CHECK(all.compile(won->id, "sm_90")->cubin == "\x7f" "ELF-b");
  CHECK(all.results_for_task(shared).size() == 2);
  // Each lesson's evidence is its own shard's result, under the merged id.
  for (const auto& l : all.lessons()) {
    REQUIRE(l.evidence.size() == 1);
    bool found = false;
    for (const auto& r : all.results_for_task(shared))
      found = found || (r.id == l.evidence[0] && all.candidate(r.candidate_id)->key == "cand-" + l.situation.substr(11));
    CHECK_MESSAGE(found, l.situation);
  }
  CHECK(check_database(dir / "all.db").ok());
}

TEST_CASE("merge: merging a shard again adds nothing, and a slower winner never replaces a faster one") {
  test::TempDir dir;
  write_shard(dir / "fast.db", "fast", 0.5, "emu:cpu");
  write_shard(dir / "slow.db", "slow", 1.5, "emu:cpu");
  merge_databases({dir / "fast.db"}, dir / "all.db");
  MergeReport again = merge_databases({dir / "fast.db", dir / "slow.db", dir / "fast.db"}, dir / "all.db");
  CHECK(again.results == 2);  // slow's two; fast's are there already
  CHECK(count(dir / "all.db", "results") == 4);
  CHECK(count(dir / "all.db", "lessons") == 2);
  KnowledgeDb all(dir / "all.db");
  for (const auto& t : all.tasks())
    if (t.key == "shared") CHECK(all.winner(t.id, "emu:cpu")->time_ms == 0.5);
}

TEST_CASE("merge: a version-1 shard is merged without being changed, and foreign files are refused first") {
  test::TempDir dir;
  {
    SqliteConnection raw(dir / "old.db");
    migrate(raw, {schema_migrations().front()});
    raw.exec(
        "INSERT INTO tasks (key, op, spec_hash, static_dims, buckets, shape, scalars, arch, layers) "
        "VALUES ('t-old', 'gemv', 'h', '{}', '{}', '{}', '{}', 'sm_80', '[]')");
  }
  const std::string old_before = test::read_bytes(dir / "old.db");
  test::write_bytes(dir / "notes.db", "not a database at all\n");
  std::string error;
  try {
    merge_databases({dir / "old.db", dir / "notes.db"}, dir / "all.db");
  } catch (const DbError& e) {
    error = e.what();
  }
  CHECK(error.rfind((dir / "notes.db").string() + ": not a hone database", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(dir / "all.db"));  // every source is checked before the target is made

  CHECK_THROWS_AS(merge_databases({dir / "old.db"}, dir / "old.db"), InputError);
  MergeReport report = merge_databases({dir / "old.db"}, dir / "all.db");
  CHECK(report.tasks == 1);
  CHECK(test::read_bytes(dir / "old.db") == old_before);
  CHECK(KnowledgeDb(dir / "all.db").tasks().at(0).key == "t-old");
}
