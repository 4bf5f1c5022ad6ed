// `hone export --format kernel-tuner` (T4 results) and `--format kernel-launcher` (wisdom
// files) on a real job's database.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "support/job_cache.hpp"
#include "serving/kernel_launcher_export.hpp"
#include "serving/kernel_tuner_export.hpp"
#include "serving/task_results.hpp"

using namespace hone;

TEST_CASE("export kernel-tuner: one T4 results file per task with every evaluation, in the schema's fields") {
  test::JobCache job("t4");
  KnowledgeDb db(job.db);
  const auto s = export_kernel_tuner(db, job.dir / "t4");
  CHECK(s.files == 2);
  CHECK(s.records == 4);  // budget 2 in each of the two tasks; the reference is not a configuration
  const std::set<std::string> invalidity = {"timeout", "compile", "runtime", "correctness", "constraints", "correct"};
  std::size_t seen = 0;
  for (const auto& task : db.tasks()) {
    const auto file = job.dir / "t4" / (task_file_stem(task) + "_emu_" + file_name_safe(task_devices(db, task.id)[0].substr(4)) + ".json");
    CAPTURE(file);
    const auto j = read_json_file(file);
    CHECK(j["schema_version"] == "1.0.0");
    REQUIRE(j["results"].is_array());
    for (const auto& r : j["results"]) {
      for (const char* required : {"configuration", "times", "invalidity", "correctness"}) CHECK(r.contains(required));
      REQUIRE(r["configuration"]["variant"].is_string());
      CHECK(r["configuration"].contains(r["configuration"]["variant"] == "rmsnorm_row_block" ? "BLOCK" : "WARPS"));
      CHECK(r["configuration"].contains("VEC"));
      CHECK(invalidity.count(r["invalidity"].get<std::string>()) == 1);
      CHECK(r["objectives"] == nlohmann::json::array({"time"}));
      CHECK(r["timestamp"].is_string());
      CHECK(r["times"]["compilation_time"].get<double>() >= 0);
      bool timer = false;
      for (const auto& m : r["measurements"]) {
        CHECK(m["name"].is_string());
        CHECK(m["unit"].is_string());
        if (m["name"] == "timer") timer = m["value"] == "cpu";
      }
      CHECK(timer);  // CPU times say so
      ++seen;
    }
  }
  CHECK(seen == 4);
  CHECK(read_text_file(job.dir / "t4" / ".hone-export") == "kernel-tuner\n");
  // Exporting again replaces it; a folder that is not such an export is never replaced.
  CHECK(export_kernel_tuner(db, job.dir / "t4").files == 2);
  std::filesystem::create_directories(job.dir / "mine");
  std::ofstream(job.dir / "mine" / "notes.txt") << "keep";
  CHECK_THROWS_WITH_AS(export_kernel_tuner(db, job.dir / "mine"), doctest::Contains("is not an earlier"), InputError);
  CHECK(read_text_file(job.dir / "mine" / "notes.txt") == "keep");
}

TEST_CASE("export kernel-tuner: a result's invalidity follows the stage that rejected it") {
  ResultRecord r;
  r.verdict = "pass";
  CHECK(t4_invalidity(r) == "correct");
  r.verdict = "fail";
  r.stage = "static";
  r.reason = "does not compile: nvrtc: error";
  CHECK(t4_invalidity(r) == "compile");
  r.reason = "spills 8 bytes stored and 8 loaded (limit 0)";
  CHECK(t4_invalidity(r) == "constraints");
  for (const char* stage : {"reference", "hidden", "consistency"}) {
    r.stage = stage;
    r.reason = "out differs";
    CHECK(t4_invalidity(r) == "correctness");
  }
  r.stage = "worker";
  r.reason = "the worker did not answer within 300 s (in the timing stage)";
  CHECK(t4_invalidity(r) == "timeout");
  r.reason = "the worker died of signal 11 (in the reference stage)";
  CHECK(t4_invalidity(r) == "runtime");
}

TEST_CASE("export kernel-launcher: wisdom files kernel_launcher reads: header line, then one record per passing configuration") {
  test::JobCache job("wisdom");
  KnowledgeDb db(job.db);
  const auto s = export_kernel_launcher(db, job.dir / "wisdom");
  CHECK(s.files == 2);    // each variant at one static shape: a search draws one point of each first
  CHECK(s.records == 4);  // two passing configurations in each of the two buckets, one of each variant
  CHECK(std::filesystem::exists(job.dir / "wisdom" / "rmsnorm_warp_rows_hidden256.wisdom"));
  std::ifstream in(job.dir / "wisdom" / "rmsnorm_row_block_hidden256.wisdom");
  std::string line;
  REQUIRE(std::getline(in, line));
  const auto header = nlohmann::json::parse(line);
  CHECK(header["version"] == "1.0");
  CHECK(header["objective"] == "time");
  CHECK(header["key"] == "rmsnorm_row_block_hidden256");
  const auto params = header["tunable_parameters"];
  CHECK(params == nlohmann::json::array({"BLOCK", "VEC"}));
  double last = 0;
  std::set<std::int64_t> problem_sizes;
  int records = 0;
  while (std::getline(in, line)) {
    const auto r = nlohmann::json::parse(line);
    CHECK(r["config"].size() == params.size());
    REQUIRE(r["problem_size"].size() == 3);
    problem_sizes.insert(r["problem_size"][0].get<std::int64_t>());
    CHECK(r["problem_size"][1] == 1);
    CHECK(r["time"].get<double>() >= last);  // best first
    last = r["time"];
    CHECK(r["environment"]["device_name"].is_string());
    CHECK(r["environment"]["compute_capability"] == 90);
    CHECK(r["environment"]["hone_timer"] == "cpu");
    ++records;
  }
  CHECK(records == 2);
  CHECK(problem_sizes == std::set<std::int64_t>{2, 4});  // each bucket's upper bound, where it was tuned
}
