#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace {

const std::string kCheckDir = std::string(HONE_TEST_DATA_DIR) + "/validator/check/";

hone::test::CommandResult check(const std::string& file, const std::string& extra = "") {
  return hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone check --op rmsnorm --source " + kCheckDir + file +
                                 " --entry rmsnorm_warp --grid \"ceil_div(tokens,4),1,1\" --block \"128,1,1\""
                                 " --shape tokens=7,hidden=4096 " + extra);
}

}  // namespace

TEST_CASE("hone check: a correct hand-written rmsnorm (one warp per row, shuffles) is accepted on emu") {
  auto r = check("rmsnorm_warp.cu", "--device emu");
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("accepted") != std::string::npos);
}

TEST_CASE("hone check: the same kernel with its __syncthreads removed is rejected on emu") {
  auto r = check("rmsnorm_warp_nosync.cu", "--device emu --json");
  REQUIRE_MESSAGE(r.code == 1, r.output);
  auto v = nlohmann::json::parse(r.output);
  CHECK(v["pass"] == false);
  CHECK(v["stage"] != "static");
  CHECK(!v["reason"].get<std::string>().empty());
}

TEST_CASE("hone check: --device none runs the static checks only, and bad input is exit 2") {
  auto r = check("rmsnorm_warp.cu", "--device none --json");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  auto v = nlohmann::json::parse(r.output);
  CHECK(v["stage"] == "static");
  CHECK(v["detail"]["resources"]["shared_bytes"] == 16384);
  CHECK(check("missing.cu", "--device none").code == 2);
  auto bad = hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone check --op rmsnorm --source " + kCheckDir +
                                     "rmsnorm_warp.cu --entry rmsnorm_warp --grid \"ceil_div(tokens,ROWS)\" --block 128"
                                     " --shape tokens=7,hidden=4096 --device none");
  CHECK(bad.code == 2);
  CHECK_MESSAGE(bad.output.find("uses 'ROWS', which is not a shape symbol of rmsnorm") != std::string::npos, bad.output);
}
