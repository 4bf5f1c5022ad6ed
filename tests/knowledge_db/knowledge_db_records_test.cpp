#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

bool looks_like_utc_timestamp(const std::string& s) {
  // 2025-01-31T12:34:56.789Z
  return s.size() == 24 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' &&
         s[19] == '.' && s[23] == 'Z';
}

struct Fixture {
  test::TempDir dir;
  KnowledgeDb db{dir / "hone.db"};
  TaskRecord task = test::make_task("task");
  CandidateRecord candidate = test::make_candidate("cand");

  Fixture() {
    db.upsert_task(task);
    db.upsert_candidate(candidate);
  }

  std::int64_t result(const std::string& device, double time_ms, std::int64_t candidate_id = 0) {
    auto r = test::make_result(task.id, candidate_id ? candidate_id : candidate.id, device, time_ms);
    return db.add_result(r);
  }
};

}  // namespace

TEST_CASE("upserting a task is idempotent by key and round-trips every field") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto first = test::make_task("rmsnorm/hidden=4096/tokens=1..16/sm_90");
  std::int64_t id = db.upsert_task(first);
  CHECK(id > 0);
  CHECK(first.id == id);

  auto again = test::make_task("rmsnorm/hidden=4096/tokens=1..16/sm_90");
  again.layers = {"some-other-model/norm"};  // the key decides, not the other fields
  CHECK(db.upsert_task(again) == id);
  CHECK(again.id == id);

  auto other = test::make_task("rmsnorm/hidden=4096/tokens=17..64/sm_90");
  std::int64_t other_id = db.upsert_task(other);
  CHECK(other_id != id);

  auto tasks = db.tasks();
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].id == id);
  CHECK(tasks[1].id == other_id);
  const auto& stored = tasks[0];
  CHECK(stored.key == first.key);
  CHECK(stored.op == first.op);
  CHECK(stored.spec_hash == first.spec_hash);
  CHECK(stored.static_dims == first.static_dims);
  CHECK(stored.buckets == first.buckets);
  CHECK(stored.shape == first.shape);
  CHECK(stored.scalars == first.scalars);
  CHECK(stored.scalars["eps"].get<double>() == 1e-6);
  CHECK(stored.arch == first.arch);
  CHECK(stored.layers == first.layers);
  CHECK_FALSE(db.task(other_id + 100));
}

TEST_CASE("upserting a candidate is idempotent by key and round-trips every field") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto c = test::make_candidate("sha-1");
  std::int64_t id = db.upsert_candidate(c);
  auto same = test::make_candidate("sha-1");
  CHECK(db.upsert_candidate(same) == id);
  auto other = test::make_candidate("sha-2");
  CHECK(db.upsert_candidate(other) != id);

  auto stored = db.candidate(id);
  REQUIRE(stored);
  CHECK(stored->id == id);
  CHECK(stored->key == c.key);
  CHECK(stored->op == c.op);
  CHECK(stored->origin == c.origin);
  CHECK(stored->variant == c.variant);
  CHECK(stored->params == c.params);
  CHECK(stored->entry == c.entry);
  CHECK(stored->source == c.source);
  CHECK(stored->launch == c.launch);
  CHECK_FALSE(db.candidate(id + 100));
}

TEST_CASE("an empty key is refused") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto task = test::make_task("");
  CHECK_THROWS_AS(db.upsert_task(task), DbError);
  CHECK(db.tasks().empty());
}

TEST_CASE("compiles round-trip, keep binary cubins and are replaced per (candidate, arch, compiler)") {
  Fixture f;
  CompileRecord c;
  c.candidate_id = f.candidate.id;
  c.arch = "sm_90";
  c.compiler = "nvrtc 13.0";
  c.ok = true;
  c.log = "ptxas info: Used 32 registers";
  c.registers = 32;
  c.spill_stores = 4;
  c.spill_loads = 8;
  c.shared_bytes = 1024;
  c.stack_bytes = 16;
  c.compile_ms = 12.5;
  c.ptx = ".version 8.5\n.target sm_90\n";
  c.cubin = std::string("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe", 13);
  f.db.put_compile(c);

  auto stored = f.db.compile(f.candidate.id, "sm_90");
  REQUIRE(stored);
  CHECK(stored->candidate_id == c.candidate_id);
  CHECK(stored->arch == c.arch);
  CHECK(stored->compiler == c.compiler);
  CHECK(stored->ok);
  CHECK(stored->log == c.log);
  CHECK(stored->registers == 32);
  CHECK(stored->spill_stores == 4);
  CHECK(stored->spill_loads == 8);
  CHECK(stored->shared_bytes == 1024);
  CHECK(stored->stack_bytes == 16);
  CHECK(stored->compile_ms == 12.5);
  CHECK(stored->ptx == c.ptx);
  CHECK(stored->cubin == c.cubin);
  CHECK_FALSE(f.db.compile(f.candidate.id, "sm_80"));

  c.ok = false;
  c.log = "error: identifier \"x\" is undefined";
  c.cubin.clear();
  f.db.put_compile(c);
  stored = f.db.compile(f.candidate.id, "sm_90");
  REQUIRE(stored);
  CHECK_FALSE(stored->ok);
  CHECK(stored->log == c.log);
  CHECK(stored->cubin.empty());

  SqliteConnection raw(f.db.file());
  CHECK(raw.query_int("SELECT count(*) FROM compiles") == 1);
  CHECK(raw.query_int("SELECT count(*) FROM compiles WHERE typeof(cubin) = 'blob' AND typeof(ptx) = 'text'") == 1);
}

TEST_CASE("results round-trip with their JSON detail") {
  Fixture f;
  ResultRecord r = test::make_result(f.task.id, f.candidate.id, "emu:AMD EPYC", 3.5);
  r.verdict = "fail";
  r.stage = "hidden";
  r.reason = "tokens=13: out[12, 4095] = 1.5, expected 1.25";
  r.timer = "cpu";
  r.detail = {{"worst", {{"index", {12, 4095}}, {"got", 1.5}, {"want", 1.25}}},
              {"seeds", {7, 8}},
              {"note", "ünïcode ok"},
              {"nested", {{"empty", nlohmann::json::array()}, {"null", nullptr}}}};
  std::int64_t id = f.db.add_result(r);
  CHECK(r.id == id);
  CHECK(looks_like_utc_timestamp(r.created_at));

  auto results = f.db.results_for_task(f.task.id);
  REQUIRE(results.size() == 1);
  const auto& s = results[0];
  CHECK(s.id == id);
  CHECK(s.task_id == r.task_id);
  CHECK(s.candidate_id == r.candidate_id);
  CHECK(s.device == r.device);
  CHECK(s.verdict == "fail");
  CHECK(s.stage == "hidden");
  CHECK(s.reason == r.reason);
  CHECK(s.max_abs_err == r.max_abs_err);
  CHECK(s.time_ms == r.time_ms);
  CHECK(s.time_min_ms == r.time_min_ms);
  CHECK(s.time_spread == r.time_spread);
  CHECK(s.runs == r.runs);
  CHECK(s.timer == "cpu");
  CHECK(s.detail == r.detail);
  CHECK(s.created_at == r.created_at);
}

TEST_CASE("a NaN or infinite error survives the round trip") {
  Fixture f;
  auto r = test::make_result(f.task.id, f.candidate.id, "emu:cpu", 0);
  r.verdict = "fail";
  r.max_abs_err = std::numeric_limits<double>::quiet_NaN();
  r.time_spread = std::numeric_limits<double>::infinity();
  f.db.add_result(r);
  auto stored = f.db.latest_result(f.task.id, f.candidate.id, "emu:cpu");
  REQUIRE(stored);
  CHECK(std::isnan(stored->max_abs_err));
  CHECK(std::isinf(stored->time_spread));
  CHECK(stored->time_ms == 0);
}

TEST_CASE("invalid UTF-8 in a JSON detail is stored, not a failed write") {
  Fixture f;
  auto r = test::make_result(f.task.id, f.candidate.id, "emu:cpu", 1.0);
  r.detail = {{"log", std::string("bad \xff byte")}};
  f.db.add_result(r);
  auto stored = f.db.latest_result(f.task.id, f.candidate.id, "emu:cpu");
  REQUIRE(stored);
  CHECK(stored->detail["log"].get<std::string>() == "bad \xef\xbf\xbd byte");  // U+FFFD
}

TEST_CASE("a result that violates the schema is refused and leaves nothing behind") {
  Fixture f;
  auto r = test::make_result(f.task.id, f.candidate.id, "emu:cpu", 1.0);
  r.verdict = "maybe";
  CHECK_THROWS_AS(f.db.add_result(r), DbError);
  CHECK(f.db.results_for_task(f.task.id).empty());
  r.verdict = "pass";
  CHECK(f.db.add_result(r) > 0);  // the object is still usable
  CHECK(f.db.results_for_task(f.task.id).size() == 1);
}

TEST_CASE("latest_result picks the newest result of that task, candidate and device") {
  Fixture f;
  auto other = test::make_candidate("other");
  f.db.upsert_candidate(other);
  const std::string h200 = "cuda:NVIDIA H200";
  CHECK_FALSE(f.db.latest_result(f.task.id, f.candidate.id, h200));

  f.result(h200, 2.0);
  std::int64_t newest = f.result(h200, 3.0);  // newer, though slower: newest is not fastest
  f.result("emu:cpu", 9.0);
  f.result(h200, 1.0, other.id);

  auto latest = f.db.latest_result(f.task.id, f.candidate.id, h200);
  REQUIRE(latest);
  CHECK(latest->id == newest);
  CHECK(latest->time_ms == 3.0);
  CHECK(latest->device == h200);
  CHECK(f.db.latest_result(f.task.id, f.candidate.id, "emu:cpu")->time_ms == 9.0);
  CHECK(f.db.latest_result(f.task.id, other.id, h200)->time_ms == 1.0);
  CHECK_FALSE(f.db.latest_result(f.task.id, f.candidate.id, "cuda:NVIDIA A100"));

  auto all = f.db.results_for_task(f.task.id);
  REQUIRE(all.size() == 4);
  CHECK(all[0].time_ms == 2.0);
  CHECK(all[3].time_ms == 1.0);
  CHECK(f.db.results_for_task(f.task.id + 1).empty());
}

TEST_CASE("offer_winner keeps the faster candidate and refuses a slower one") {
  Fixture f;
  auto fast = test::make_candidate("fast");
  auto slow = test::make_candidate("slow");
  f.db.upsert_candidate(fast);
  f.db.upsert_candidate(slow);
  const std::string h200 = "cuda:NVIDIA H200";
  std::int64_t r_mid = f.result(h200, 2.0);
  std::int64_t r_slow = f.result(h200, 3.0, slow.id);
  std::int64_t r_fast = f.result(h200, 1.0, fast.id);

  CHECK_FALSE(f.db.winner(f.task.id, h200));
  CHECK(f.db.offer_winner({f.task.id, h200, f.candidate.id, r_mid, 2.0, 4.0, ""}));
  CHECK_FALSE(f.db.offer_winner({f.task.id, h200, slow.id, r_slow, 3.0, 4.0, ""}));
  CHECK_FALSE(f.db.offer_winner({f.task.id, h200, slow.id, r_slow, 2.0, 4.0, ""}));  // a tie keeps the holder
  auto w = f.db.winner(f.task.id, h200);
  REQUIRE(w);
  CHECK(w->candidate_id == f.candidate.id);
  CHECK(w->result_id == r_mid);
  CHECK(w->time_ms == 2.0);
  CHECK(looks_like_utc_timestamp(w->updated_at));

  CHECK(f.db.offer_winner({f.task.id, h200, fast.id, r_fast, 1.0, 4.0, ""}));
  w = f.db.winner(f.task.id, h200);
  REQUIRE(w);
  CHECK(w->candidate_id == fast.id);
  CHECK(w->result_id == r_fast);
  CHECK(w->time_ms == 1.0);
  CHECK(w->baseline_ms == 4.0);

  // Another device has its own winner.
  std::int64_t r_emu = f.result("emu:cpu", 50.0, slow.id);
  CHECK(f.db.offer_winner({f.task.id, "emu:cpu", slow.id, r_emu, 50.0, 60.0, ""}));
  auto all = f.db.winners();
  REQUIRE(all.size() == 2);
  CHECK(all[0].device == "cuda:NVIDIA H200");
  CHECK(all[0].time_ms == 1.0);
  CHECK(all[1].device == "emu:cpu");
  CHECK(all[1].candidate_id == slow.id);
}

TEST_CASE("a new winner does not inherit its predecessor's re-timed figures") {
  Fixture f;
  auto fast = test::make_candidate("fast");
  f.db.upsert_candidate(fast);
  const std::string h200 = "cuda:NVIDIA H200";
  const std::int64_t r_mid = f.result(h200, 2.0), r_fast = f.result(h200, 1.0, fast.id);
  REQUIRE(f.db.offer_winner({f.task.id, h200, f.candidate.id, r_mid, 2.0, 4.0, ""}));
  REQUIRE(f.db.retime_winner(f.task.id, h200, f.candidate.id, 2.1, 4.2));
  REQUIRE(f.db.offer_winner({f.task.id, h200, fast.id, r_fast, 1.0, 4.0, ""}));
  const auto w = f.db.winner(f.task.id, h200);
  REQUIRE(w);
  CHECK_FALSE(w->timed_in_turns());  // 2.1 and 4.2 were the old winner's
  CHECK(w->shown_ms() == 1.0);
}

TEST_CASE("set_winner replaces the holder, faster or not, with its re-timed figures") {
  Fixture f;
  auto baseline = test::make_candidate("baseline");
  f.db.upsert_candidate(baseline);
  const std::string h200 = "cuda:NVIDIA H200";
  const std::int64_t r_fast = f.result(h200, 1.0), r_base = f.result(h200, 3.0, baseline.id);
  REQUIRE(f.db.offer_winner({f.task.id, h200, f.candidate.id, r_fast, 1.0, 3.0, ""}));
  WinnerRecord b{f.task.id, h200, baseline.id, r_base, 3.0, 3.0, ""};
  b.retimed_ms = b.retimed_baseline_ms = 2.9;
  f.db.set_winner(b);
  const auto w = f.db.winner(f.task.id, h200);
  REQUIRE(w);
  CHECK(w->candidate_id == baseline.id);
  CHECK(w->result_id == r_base);
  CHECK(w->timed_in_turns());
  CHECK(w->shown_ms() == 2.9);
  CHECK(w->shown_baseline_ms() == 2.9);
  CHECK_THROWS_AS(f.db.set_winner({f.task.id, h200, baseline.id, r_base, 0.0, 0.0, ""}), std::invalid_argument);
}

TEST_CASE("offer_winner refuses an untimed or NaN time") {
  Fixture f;
  std::int64_t r = f.result("none:sm_90", 0);
  CHECK_THROWS_AS(f.db.offer_winner({f.task.id, "none:sm_90", f.candidate.id, r, 0.0, 0.0, ""}),
                  std::invalid_argument);
  CHECK_THROWS_AS(f.db.offer_winner({f.task.id, "none:sm_90", f.candidate.id, r,
                                     std::numeric_limits<double>::quiet_NaN(), 0.0, ""}),
                  std::invalid_argument);
  CHECK(f.db.winners().empty());
}

TEST_CASE_FIXTURE(Fixture, "device limits: recorded for a device, replaced by a later job's, none for a device seen only in results") {
  const std::string h200 = "cuda:NVIDIA H200";
  result(h200, 0.01);
  CHECK_FALSE(db.device_limits(h200));  // known from a result, nothing measured
  db.put_device_limits(h200, {{"copy_bandwidth_gbs", 4100.0}, {"peak_bandwidth_gbs", 4800.0}});
  db.put_device_limits(h200, {{"copy_bandwidth_gbs", 4300.0}, {"peak_bandwidth_gbs", 4800.0}});
  REQUIRE(db.device_limits(h200));
  CHECK(db.device_limits(h200)->at("copy_bandwidth_gbs") == 4300.0);
  // A device no result names yet is recorded with its kind, as the results' trigger records one.
  db.put_device_limits("cuda:NVIDIA B200", {{"copy_bandwidth_gbs", 7000.0}});
  CHECK(db.devices() == std::vector<std::string>{"cuda:NVIDIA B200", h200});
  SqliteConnection raw(dir / "hone.db");
  CHECK(raw.query_int("SELECT kind = 'cuda' FROM devices WHERE name = 'cuda:NVIDIA B200'") == 1);
}
