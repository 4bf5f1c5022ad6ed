// Distillation: parameter effects mined from the results become lessons with their evidence;
// a rerun does not duplicate them, newer results supersede them, near-duplicates merge.
#include <doctest/doctest.h>

#include <map>

#include "knowledge_db/param_effects.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

const std::string kDevice = "cuda:NVIDIA H200";

// Tasks of rmsnorm at hidden=4096 for token buckets, and template candidates by (BLOCK, VEC).
struct Results {
  KnowledgeDb& db;
  std::map<int, std::int64_t> task_of_bucket;
  std::map<std::pair<int, int>, std::int64_t> candidate_of;

  std::int64_t task(int hi) {
    auto& id = task_of_bucket[hi];
    if (!id) {
      auto t = test::make_task("rmsnorm-" + std::to_string(hi));
      t.buckets = {{"tokens", {hi / 2 + 1, hi}}};
      t.shape = {{"hidden", 4096}, {"tokens", hi}};
      id = db.upsert_task(t);
    }
    return id;
  }
  std::int64_t candidate(int block, int vec) {
    auto& id = candidate_of[{block, vec}];
    if (!id) {
      auto c = test::make_candidate("rmsnorm-B" + std::to_string(block) + "-V" + std::to_string(vec));
      c.params = {{"BLOCK", block}, {"VEC", vec}};
      id = db.upsert_candidate(c);
    }
    return id;
  }
  std::int64_t add(int bucket_hi, int block, int vec, double ms, const std::string& verdict = "pass") {
    auto r = test::make_result(task(bucket_hi), candidate(block, vec), kDevice, ms);
    r.verdict = verdict;
    return db.add_result(r);
  }
};

// BLOCK=256 wins every bucket by 1.3x; VEC=8 wins two buckets and VEC=4 the other two.
void block_256_wins(Results& r) {
  for (int hi : {2, 4, 32, 64}) {
    const bool vec8 = hi <= 4;
    r.add(hi, 128, 4, vec8 ? 1.35 : 1.30);
    r.add(hi, 128, 8, vec8 ? 1.30 : 1.35);
    r.add(hi, 256, 4, vec8 ? 1.05 : 1.00);
    r.add(hi, 256, 8, vec8 ? 1.00 : 1.05);
  }
}

std::vector<LessonRecord> distilled(KnowledgeDb& db, bool include_superseded = false) {
  std::vector<LessonRecord> out;
  for (auto& l : db.lessons(include_superseded))
    if (l.origin == "distilled") out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("distill: a parameter value that wins across shapes becomes a lesson with its evidence") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  Results r{db};
  block_256_wins(r);
  // Failed and slower-but-failed results do not count, however fast.
  r.add(64, 512, 4, 0.01, "fail");

  DistillReport report = db.distill_lessons();
  CHECK(report.effects == 1);
  CHECK(report.written == 1);
  auto lessons = distilled(db);
  REQUIRE(lessons.size() == 1);
  const auto& l = lessons[0];
  CHECK(l.situation == "rmsnorm (row_per_block) at hidden=4096, tokens 2..64 on cuda:NVIDIA H200 (sm_90)");
  CHECK(l.action == "prefer BLOCK=256: median 1.30x faster than the next value, best in 4 of 4 tasks");
  for (const char* tag : {"op/rmsnorm", "arch/sm_90", "param/BLOCK", "device/cuda", "variant/row_per_block", "shape/tokens<=64"}) {
    CAPTURE(tag);
    CHECK(std::find(l.tags.begin(), l.tags.end(), tag) != l.tags.end());
  }
  CHECK(l.confidence == doctest::Approx(0.8));  // 4 of 4, discounted for a support of 4
  CHECK(l.key == "rmsnorm|row_per_block|BLOCK|" + kDevice);
  CHECK(l.claim["value"] == 256);
  CHECK(l.evidence.size() == 8);  // per task, the winner's best result and the runner-up's

  // It is found by the next search for that op.
  LessonQuery q;
  q.text = "rmsnorm block size on sm_90";
  q.tag_prefixes = {"op/rmsnorm"};
  auto hits = db.search_lessons(q);
  REQUIRE_FALSE(hits.empty());
  CHECK(hits[0].lesson.id == l.id);
}

TEST_CASE("distill: a rerun adds nothing, and more evidence refreshes the same lesson") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  Results r{db};
  block_256_wins(r);
  db.distill_lessons();
  auto before = distilled(db);
  REQUIRE(before.size() == 1);
  DistillReport again = db.distill_lessons();
  CHECK(again.written == 0);
  CHECK(again.refreshed == 0);
  CHECK(distilled(db, true).size() == 1);

  r.add(128, 128, 4, 2.6);
  r.add(128, 256, 4, 2.0);
  DistillReport more = db.distill_lessons();
  CHECK(more.written == 0);
  CHECK(more.refreshed == 1);
  auto after = distilled(db, true);
  REQUIRE(after.size() == 1);
  CHECK(after[0].id == before[0].id);
  CHECK(after[0].action.find("best in 5 of 5 tasks") != std::string::npos);
  CHECK(after[0].evidence.size() == 10);
}

TEST_CASE("distill: newer results that favour another value supersede the lesson") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  Results r{db};
  block_256_wins(r);
  db.distill_lessons();
  const auto old_id = distilled(db).at(0).id;

  // Re-measured (a newer driver, say): now 128 is faster everywhere. Only the latest result of
  // each (task, candidate, device) counts.
  for (int hi : {2, 4, 32, 64}) {
    r.add(hi, 256, 4, 1.5);
    r.add(hi, 256, 8, 1.5);
  }
  DistillReport report = db.distill_lessons();
  CHECK(report.superseded == 1);
  CHECK(report.written == 1);
  auto active = distilled(db);
  REQUIRE(active.size() == 1);
  CHECK(active[0].claim["value"] == 128);
  auto old_lesson = db.lesson(old_id);
  CHECK(old_lesson->status == "superseded");
  CHECK(old_lesson->superseded_by == active[0].id);
}

TEST_CASE("distill: a lesson the results no longer bear out is superseded even without a successor") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  Results r{db};
  block_256_wins(r);
  db.distill_lessons();
  const auto old_id = distilled(db).at(0).id;
  // 256 now wins one bucket of four; 128 wins three by less than the minimum margin.
  for (int hi : {2, 4, 32}) r.add(hi, 128, 4, 0.99);
  DistillReport report = db.distill_lessons();
  CHECK(report.effects == 0);
  CHECK(report.superseded == 1);
  CHECK(distilled(db).empty());
  CHECK(db.lesson(old_id)->status == "superseded");
  CHECK(db.lesson(old_id)->superseded_by == 0);
}

TEST_CASE("distill: too little support writes nothing") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  Results r{db};
  for (int hi : {2, 4}) {
    r.add(hi, 128, 4, 2.0);
    r.add(hi, 256, 4, 1.0);
  }
  CHECK(db.distill_lessons().written == 0);
  DistillOptions lenient;
  lenient.min_support = 2;
  CHECK(db.distill_lessons(lenient).written == 1);
}

TEST_CASE("distill: near-duplicate lessons merge into the more confident one, other architectures stay apart") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto make = [&](const std::string& situation, const std::string& action, const std::string& arch, double confidence) {
    LessonRecord l;
    l.situation = situation;
    l.action = action;
    l.tags = {"op/gemv", "arch/" + arch};
    l.confidence = confidence;
    db.add_lesson(l);
    return l.id;
  };
  auto a = make("gemv with M<=4 and K>=4096 on sm_90", "one warp per output row with 16-byte loads", "sm_90", 0.6);
  auto b = make("gemv with M <= 4, K >= 4096 on sm_90", "one warp per output row, with 16-byte loads", "sm_90", 0.9);
  auto c = make("gemv with M<=4 and K>=4096 on sm_80", "one warp per output row with 16-byte loads", "sm_80", 0.6);
  auto d = make("rmsnorm at hidden=4096", "VEC=8 bf16 per thread", "sm_90", 0.5);
  DistillReport report = db.distill_lessons();
  CHECK(report.merged == 1);
  CHECK(db.lesson(a)->status == "superseded");
  CHECK(db.lesson(a)->superseded_by == b);
  CHECK(db.lesson(b)->status == "active");
  CHECK(db.lesson(c)->status == "active");
  CHECK(db.lesson(d)->status == "active");
}

TEST_CASE("param effects: the margin is the median over the tasks won, against the next best value") {
  auto m = [](std::int64_t id, std::int64_t task, int block, double ms) {
    Measurement x;
    x.result_id = id;
    x.task_id = task;
    x.op = "gemv";
    x.variant = "warp_per_row";
    x.arch = "sm_90";
    x.device = "cuda:X";
    x.timer = "gpu";
    x.params = {{"BLOCK", block}};
    x.shape = {{"M", task}, {"N", 4096}};
    x.buckets = {{"M", {task, task}}};
    x.time_ms = ms;
    return x;
  };
  std::vector<Measurement> ms = {
      m(1, 1, 64, 1.0), m(2, 1, 128, 2.0), m(3, 1, 256, 1.5),   // 64 wins by 1.5x over 256
      m(4, 2, 64, 1.0), m(5, 2, 128, 1.1),                      // 64 wins by 1.1x
      m(6, 4, 64, 1.0), m(7, 4, 128, 1.2), m(8, 4, 128, 0.5),   // the better 128 counts: 128 wins
      m(9, 8, 64, 1.0), m(10, 8, 256, 3.0),                     // 64 wins by 3x
  };
  DistillOptions o;
  o.min_agreement = 0.7;
  auto effects = find_param_effects(ms, o);
  REQUIRE(effects.size() == 1);
  const auto& e = effects[0];
  CHECK(e.value == 64);
  CHECK(e.support == 3);
  CHECK(e.compared == 4);
  CHECK(e.median_speedup == doctest::Approx(1.5));
  CHECK(e.evidence == std::vector<std::int64_t>{1, 3, 4, 5, 9, 10});
  CHECK(e.dims.at("M") == std::pair<long long, long long>{1, 8});
  CHECK(e.dims.at("N") == std::pair<long long, long long>{4096, 4096});
  o.min_agreement = 0.8;  // 3 of 4 is not enough
  CHECK(find_param_effects(ms, o).empty());
  o.min_agreement = 0.7;
  o.min_speedup = 1.6;
  CHECK(find_param_effects(ms, o).empty());
}
