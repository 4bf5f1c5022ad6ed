#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>

#include <sqlite3.h>

#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/sha256.hpp"
#include "serving/cache_export.hpp"
#include "tuner/tuning_job.hpp"

using namespace hone;

namespace {

struct TunedDb {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hone-export-" + std::to_string(::getpid()));
  std::filesystem::path db_file = dir / "tiny.db";

  TunedDb() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    TuneOptions o;
    o.model_file = std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json";
    o.device = "emu";
    o.db_file = db_file;
    o.budget = 2;
    JobProgress quiet;
    REQUIRE(run_tuning_job(o, quiet).all_won());
  }
  ~TunedDb() { std::filesystem::remove_all(dir); }
};

}  // namespace

TEST_CASE_FIXTURE(TunedDb, "export: manifest entries name files whose SHA-256 matches, with launch rule and bucket") {
  KnowledgeDb db(db_file);
  ExportSummary s = export_kernel_cache(db, dir / "cache");
  CHECK(s.entries == 2);
  nlohmann::json m = read_json_file(dir / "cache" / "manifest.json");
  CHECK(m["format"] == "hone-kernel-cache");
  CHECK(m["format_version"] == kCacheFormatVersion);
  REQUIRE(m["entries"].size() == 2);
  for (const auto& e : m["entries"]) {
    CHECK(e["op"] == "rmsnorm");
    CHECK(e["static_dims"]["hidden"] == 256);
    CHECK(e["buckets"]["tokens"].size() == 2);
    CHECK(e["arch"] == "sm_90");
    CHECK(e["device"]["kind"] == "emu");
    CHECK(e["timer"] == "cpu");
    CHECK(e["time_ms"].get<double>() > 0);
    CHECK(e["launch"].contains("grid"));
    CHECK(e["args"].size() == 6);
    for (const char* kind : {"source", "ptx", "cubin"}) {
      CAPTURE(kind);
      REQUIRE(e["files"].contains(kind));
      const std::string content = read_text_file(dir / "cache" / e["files"][kind].get<std::string>());
      CHECK(sha256_hex(content) == e["sha256"][kind]);
    }
    CHECK(read_text_file(dir / "cache" / e["files"]["source"].get<std::string>()).find(e["entry"].get<std::string>()) !=
          std::string::npos);
  }
  // Exporting again replaces the cache in place.
  CHECK(export_kernel_cache(db, dir / "cache").entries == 2);
  for (const auto& f : std::filesystem::directory_iterator(dir)) CHECK(f.path().filename().string().find(".partial") == std::string::npos);
}

TEST_CASE_FIXTURE(TunedDb, "export: times are the winner and the baseline timed in turns when the job re-timed them") {
  KnowledgeDb db(db_file);
  const auto winners = db.winners();
  REQUIRE(winners.size() == 2);
  for (const auto& w : winners) REQUIRE(w.retimed_ms > 0);
  // One winner loses its re-timing (a database from before re-timing): it keeps the search's times.
  {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(db_file.c_str(), &raw) == SQLITE_OK);
    const std::string sql = "UPDATE winners SET retimed_ms = NULL, retimed_baseline_ms = NULL WHERE task_id = " +
                            std::to_string(winners[1].task_id);
    CHECK(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  export_kernel_cache(db, dir / "cache");
  nlohmann::json m = read_json_file(dir / "cache" / "manifest.json");
  int in_turns = 0;
  for (const auto& e : m["entries"]) {
    const bool retimed = e["timed_in_turns"].get<bool>();
    in_turns += retimed;
    bool matched = false;
    for (const auto& w : winners) {
      const double time = retimed ? w.retimed_ms : w.time_ms;
      const double base = retimed ? w.retimed_baseline_ms : w.baseline_ms;
      matched |= e["time_ms"].get<double>() == time && e["baseline_ms"].get<double>() == base;
    }
    CHECK_MESSAGE(matched, e.dump());
  }
  CHECK(in_turns == 1);
}

TEST_CASE_FIXTURE(TunedDb, "export: a folder that is not a kernel cache is never overwritten") {
  KnowledgeDb db(db_file);
  std::filesystem::create_directories(dir / "precious");
  { std::ofstream(dir / "precious" / "notes.txt") << "keep me"; }
  CHECK_THROWS_WITH_AS(export_kernel_cache(db, dir / "precious"), doctest::Contains("is not a hone kernel cache"), InputError);
  CHECK(read_text_file(dir / "precious" / "notes.txt") == "keep me");
}

TEST_CASE("export: a database without winners is refused") {
  auto dir = std::filesystem::temp_directory_path() / ("hone-export-empty-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    KnowledgeDb db(dir / "empty.db");
    CHECK_THROWS_WITH_AS(export_kernel_cache(db, dir / "cache"), doctest::Contains("holds no winners"), InputError);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "cache"));
  std::filesystem::remove_all(dir);
}
