// `hone export --format kernel-tuner-cache`: an exhaustive job's evaluations as Kernel Tuner cache
// files, one per task and variant, each the variant's whole space, which `hone replay` reads back.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "serving/kernel_tuner_cache_export.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using namespace hone;

namespace {

const std::string kHone = std::string(HONE_BINARY_DIR) + "/hone";

ResultRecord failed_at(const std::string& stage, const std::string& reason) {
  ResultRecord r;
  r.verdict = "fail";
  r.stage = stage;
  r.reason = reason;
  return r;
}

}  // namespace

TEST_CASE("export kernel-tuner-cache: an exhaustive job's spaces, one file per task and variant, read back by hone replay") {
  const test::TempDir dir;
  const std::string db = (dir / "t.db").string(), out = (dir / "spaces").string();
  // tiny.json's rmsnorm at hidden 256: two tasks (tokens 1..2, 3..4), two variants, 26 configurations.
  const auto tune = test::run_command(kHone + " tune --model " + HONE_TEST_DATA_DIR + "/shapes/tiny.json --device emu " +
                                      "--strategy exhaustive --budget 1000 --db " + db + " 2>&1");
  REQUIRE_MESSAGE(tune.code == 0, tune.output);
  const auto exported = test::run_command(kHone + " export --format kernel-tuner-cache --db " + db + " --out " + out + " 2>&1");
  REQUIRE_MESSAGE(exported.code == 0, exported.output);
  CHECK(exported.output.find("wrote 52 configurations in 4 Kernel Tuner cache files") != std::string::npos);

  // The file name ends in the device (this machine's CPU) and the variant.
  std::filesystem::path warp_rows;
  for (const auto& e : std::filesystem::directory_iterator(out))
    if (e.path().filename().string().find("tokens1-2") != std::string::npos &&
        e.path().filename().string().find("rmsnorm_warp_rows.json") != std::string::npos)
      warp_rows = e.path();
  REQUIRE_MESSAGE(!warp_rows.empty(), exported.output);
  std::ifstream in(warp_rows);
  const auto j = nlohmann::json::parse(in);
  CHECK(j["kernel_name"] == "rmsnorm_warp_rows");
  CHECK(j["objective"] == "time");
  CHECK(j["tune_params_keys"] == nlohmann::json::array({"VEC", "WARPS"}));
  CHECK(j["cache"].size() == 16);
  for (const auto& [key, entry] : j["cache"].items()) {
    CAPTURE(key);
    CHECK(entry["time"].is_number());
    CHECK(entry["timer"] == "cpu");
    CHECK(key == std::to_string(entry["VEC"].get<int>()) + "," + std::to_string(entry["WARPS"].get<int>()));
  }

  const auto replay = test::run_command(kHone + " replay --cache " + warp_rows.string() + " --strategy random --budget 16 --seeds 3 2>&1");
  REQUIRE_MESSAGE(replay.code == 0, replay.output);
  CHECK_MESSAGE(replay.output.find("16 configurations (16 valid)") != std::string::npos, replay.output);
}

TEST_CASE("export kernel-tuner-cache: a failure is Kernel Tuner's marker for it") {
  CHECK(kernel_tuner_failure(failed_at("static", "does not compile: nvrtc: error")) == "CompilationFailedConfig");
  CHECK(kernel_tuner_failure(failed_at("static", "300 registers per thread (limit 255)")) == "InvalidConfig");
  CHECK(kernel_tuner_failure(failed_at("reference", "3 of 8 elements of 'out' differ")) == "RuntimeFailedConfig");
  CHECK(kernel_tuner_failure(failed_at("timing", "timed out")) == "RuntimeFailedConfig");
}
