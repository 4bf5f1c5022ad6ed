// Lessons in the database: what is refused, what round-trips, how tags and status filter.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/input_error.hpp"
#include "knowledge_db/local_embedding.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

LessonRecord lesson(const std::string& situation, const std::string& action, std::vector<std::string> tags = {}) {
  LessonRecord l;
  l.situation = situation;
  l.action = action;
  l.tags = std::move(tags);
  return l;
}

std::vector<std::int64_t> ids(const std::vector<LessonHit>& hits) {
  std::vector<std::int64_t> out;
  for (const auto& h : hits) out.push_back(h.lesson.id);
  return out;
}

std::vector<std::int64_t> with_tags(KnowledgeDb& db, std::vector<std::string> prefixes) {
  LessonQuery q;
  q.text = "kernel";  // every lesson below says it: the filter alone decides
  q.tag_prefixes = std::move(prefixes);
  q.top = 100;
  auto out = ids(db.search_lessons(q));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("lessons: a lesson without a situation or an action is refused and nothing is stored") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto no_action = lesson("gemv on sm_90", "  ");
  CHECK_THROWS_WITH_AS(db.add_lesson(no_action), "a lesson needs an action (what to do); it is empty", InputError);
  auto no_situation = lesson("", "use 16-byte loads");
  CHECK_THROWS_WITH_AS(db.add_lesson(no_situation), "a lesson needs a situation (when it applies); it is empty", InputError);
  auto neither = lesson("", "");
  CHECK_THROWS_AS(db.add_lesson(neither), InputError);
  auto bad_tag = lesson("gemv", "warp per row", {"op//gemv"});
  CHECK_THROWS_WITH_AS(db.add_lesson(bad_tag), "tag 'op//gemv' has an empty path segment", InputError);
  auto spaced_tag = lesson("gemv", "warp per row", {"op/gemv sm_90"});
  CHECK_THROWS_AS(db.add_lesson(spaced_tag), InputError);
  auto bad_confidence = lesson("gemv", "warp per row");
  bad_confidence.confidence = 1.5;
  CHECK_THROWS_AS(db.add_lesson(bad_confidence), InputError);
  CHECK(db.lessons(true).empty());

  // The schema refuses them too, whoever writes.
  SqliteConnection raw(dir / "hone.db");
  CHECK_THROWS_AS(raw.exec("INSERT INTO lessons (situation, action) VALUES ('gemv', '')"), DbError);
}

TEST_CASE("lessons: every field round-trips, with the local vector stored under its model") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto task = test::make_task("t");
  auto candidate = test::make_candidate("c");
  db.upsert_task(task);
  db.upsert_candidate(candidate);
  auto r1 = test::make_result(task.id, candidate.id, "cuda:NVIDIA H200", 0.2);
  auto r2 = test::make_result(task.id, candidate.id, "cuda:NVIDIA H200", 0.3);
  db.add_result(r1);
  db.add_result(r2);

  auto l = lesson("gemv, M<=4, K>=4096 on sm_90", "one warp per output row with 16-byte loads beats block-per-row by ~1.4x",
                  {"op/gemv", "arch/sm_90", "technique/vectorized-loads", "shape/M<=4"});
  l.confidence = 0.8;
  l.evidence = {r2.id, r1.id};
  const auto id = db.add_lesson(l);
  CHECK(id == l.id);
  auto back = db.lesson(id);
  REQUIRE(back);
  CHECK(back->situation == l.situation);
  CHECK(back->action == l.action);
  CHECK(back->tags == l.tags);
  CHECK(back->confidence == 0.8);
  CHECK(back->status == "active");
  CHECK(back->origin == "user");
  CHECK(back->evidence == std::vector<std::int64_t>{r1.id, r2.id});
  CHECK_FALSE(back->created_at.empty());
  CHECK(db.lessons_without_vector(local_embedding_model()).empty());
  CHECK(db.lessons_without_vector("text-embedding-3-small").size() == 1);

  auto missing_evidence = lesson("gemv", "warp per row");
  missing_evidence.evidence = {r2.id + 100};
  CHECK_THROWS_AS(db.add_lesson(missing_evidence), DbError);
  CHECK(db.lessons().size() == 1);
}

TEST_CASE("lessons: tag prefixes match whole path segments, and all of them must match") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto a = lesson("gemv kernel at M=1", "warp per row", {"op/gemv", "arch/sm_90"});
  auto b = lesson("gemv kernel, split-k", "split by 4", {"op/gemv/split-k", "arch/sm_80"});
  auto c = lesson("gemv2 kernel family", "something", {"op/gemv2", "arch/sm_90"});
  auto d = lesson("rmsnorm kernel", "VEC=8", {"op/rmsnorm", "arch/sm_90"});
  for (auto* l : {&a, &b, &c, &d}) db.add_lesson(*l);

  CHECK(with_tags(db, {"op/gemv"}) == std::vector<std::int64_t>{a.id, b.id});
  CHECK(with_tags(db, {"op/gemv/"}) == std::vector<std::int64_t>{a.id, b.id});
  CHECK(with_tags(db, {"op"}) == std::vector<std::int64_t>{a.id, b.id, c.id, d.id});
  CHECK(with_tags(db, {"op/gem"}).empty());
  CHECK(with_tags(db, {"op/gemv", "arch/sm_90"}) == std::vector<std::int64_t>{a.id});
  CHECK(with_tags(db, {"arch/sm_90"}) == std::vector<std::int64_t>{a.id, c.id, d.id});

  CHECK(tag_has_prefix("op/gemv/split-k", "op/gemv"));
  CHECK_FALSE(tag_has_prefix("op/gemv2", "op/gemv"));
  CHECK(split_tags(" op/gemv, arch/sm_90 ,,") == std::vector<std::string>{"op/gemv", "arch/sm_90"});
}

TEST_CASE("lessons: superseded lessons leave the search unless asked for") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  KnowledgeDb db(file);
  auto old_one = lesson("rmsnorm on sm_90", "BLOCK=128", {"op/rmsnorm"});
  auto new_one = lesson("rmsnorm on sm_90", "BLOCK=256", {"op/rmsnorm"});
  db.add_lesson(old_one);
  db.add_lesson(new_one);
  {
    SqliteConnection raw(file);
    raw.exec("UPDATE lessons SET status = 'superseded', superseded_by = " + std::to_string(new_one.id) +
             " WHERE id = " + std::to_string(old_one.id));
  }
  LessonQuery q;
  q.text = "rmsnorm BLOCK";
  CHECK(ids(db.search_lessons(q)) == std::vector<std::int64_t>{new_one.id});
  q.include_superseded = true;
  CHECK(db.search_lessons(q).size() == 2);
  CHECK(db.lessons().size() == 1);
  auto all = db.lessons(true);
  REQUIRE(all.size() == 2);
  CHECK(all[0].status == "superseded");
  CHECK(all[0].superseded_by == new_one.id);
}

TEST_CASE("lessons: the keyword index follows edits made to the lessons table") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  KnowledgeDb db(file);
  auto l = lesson("silu_mul at tokens=1", "use a grid-stride loop");
  db.add_lesson(l);
  LessonQuery q;
  q.ranking = LessonRanking::keyword;
  q.text = "grid-stride";
  CHECK(db.search_lessons(q).size() == 1);
  {
    SqliteConnection raw(file);
    raw.exec("UPDATE lessons SET action = 'launch two blocks per SM' WHERE id = " + std::to_string(l.id));
  }
  CHECK(db.search_lessons(q).empty());
  q.text = "blocks";
  CHECK(db.search_lessons(q).size() == 1);
  {
    SqliteConnection raw(file);
    raw.exec("DELETE FROM lessons");
  }
  CHECK(db.search_lessons(q).empty());
}

TEST_CASE("lessons: vectors are only compared within one model") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto a = lesson("gemv on sm_90", "warp per row");
  auto b = lesson("rmsnorm on sm_90", "VEC=8");
  db.add_lesson(a, {Embedding{"model-a", {1.0f, 0.0f}}});
  db.add_lesson(b, {Embedding{"model-a", {0.0f, 1.0f}}});
  LessonQuery q;
  q.text = "zzz";  // no keyword match: the order comes from the vectors alone
  q.ranking = LessonRanking::vector;
  auto hits = db.search_lessons(q, Embedding{"model-a", {0.1f, 0.9f}});
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].lesson.id == b.id);
  CHECK(hits[0].vector_rank == 1);
  // Same length, another model: nothing to compare with.
  CHECK(db.search_lessons(q, Embedding{"model-b", {0.1f, 0.9f}}).empty());
  CHECK_THROWS_AS(cosine_similarity(Embedding{"model-a", {1.0f}}, Embedding{"model-b", {1.0f}}), std::invalid_argument);
}

TEST_CASE("lessons: free text becomes a safe FTS5 query") {
  CHECK(fts_query("split-K for M<=4 on sm_90") == R"("split-K" OR "M<=4" OR "sm_90")");
  CHECK(fts_query(R"(say "hi" -- ( ) NOT)") == R"("say" OR """hi""" OR "NOT")");
  CHECK(fts_query("the of -- ...") == "");
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto l = lesson("gemv, M<=4 on sm_90", "split-K by 4 (fp32 atomics)");
  db.add_lesson(l);
  for (const char* text : {"\"", "NEAR(a b)", "col:value", "*", "split-K AND OR NOT", "M<=4 ^ sm_90", ""}) {
    CAPTURE(text);
    LessonQuery q;
    q.text = text;
    CHECK_NOTHROW(db.search_lessons(q));
  }
  LessonQuery q;
  q.text = "M<=4";
  q.ranking = LessonRanking::keyword;
  CHECK(db.search_lessons(q).size() == 1);
}
