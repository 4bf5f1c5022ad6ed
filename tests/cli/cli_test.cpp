#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace {

using Run = hone::test::CommandResult;

Run run_hone(const std::string& args, const std::string& env = "") {
  return hone::test::run_command(env + " " + std::string(HONE_BINARY_DIR) + "/hone " + args);
}

std::filesystem::path scratch(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("hone-cli-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("cli: --help succeeds for every command, bad usage exits 2") {
  for (const char* c : {"", "ops", "compile", "tune", "export"}) {
    CAPTURE(c);
    CHECK(run_hone(std::string(c) + " --help").code == 0);
  }
  CHECK(run_hone("").code == 2);
  CHECK(run_hone("frobnicate").code == 2);
  CHECK(run_hone("tune").code == 2);  // --model is required
  CHECK(run_hone("compile --op gemv --shape M=1,N=4096,K=4096 --bogus").code == 2);
}

TEST_CASE("cli: ops lists the four families with their signatures") {
  Run r = run_hone("ops");
  CHECK(r.code == 0);
  for (const char* s : {"rmsnorm(bf16* out, const bf16* x, const bf16* w, int tokens, int hidden, float eps)",
                        "silu_mul(", "gemv(", "gdn_decode("})
    CHECK_MESSAGE(r.output.find(s) != std::string::npos, r.output);
}

TEST_CASE("cli: compile prints the resource usage of every configuration") {
  Run r = run_hone("compile --op rmsnorm --shape tokens=7,hidden=4096 --arch sm_90 --json");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["arch"] == "sm_90");
  CHECK(j["configs"].size() >= 8);
  for (const auto& c : j["configs"]) {
    CHECK(c["ok"] == true);
    CHECK(c["registers"].get<int>() > 0);
  }
  CHECK(run_hone("compile --op rmsnorm --shape tokens=7 --arch sm_90").code == 2);
  CHECK(run_hone("compile --op rmsnorm --shape tokens=7,hidden=4096 --arch sm_20").code == 2);
  CHECK(run_hone("compile --op nope --shape tokens=7 --arch sm_90").code == 2);
}

TEST_CASE("cli: a malformed shapes file is rejected with its name and exit 2, and nothing is written") {
  auto d = scratch("shapes");
  Run r = run_hone("tune --model " + std::string(HONE_TEST_DATA_DIR) + "/shapes/not_json.json --device emu --db " + (d / "x.db").string());
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find("not_json.json: is not valid JSON") != std::string::npos, r.output);
  CHECK_FALSE(std::filesystem::exists(d / "x.db"));
  r = run_hone("tune --model " + std::string(HONE_TEST_DATA_DIR) + "/shapes/missing_symbol.json --device emu --db " + (d / "x.db").string());
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find("missing_symbol.json: ops[0] (norm): dims lack 'hidden'") != std::string::npos, r.output);
  std::filesystem::remove_all(d);
}

TEST_CASE("cli: a malformed template spec is rejected with its name and exit 2") {
  auto home = scratch("home");
  std::filesystem::copy(std::string(HONE_SOURCE_DIR) + "/templates", home / "templates", std::filesystem::copy_options::recursive);
  std::filesystem::copy(std::string(HONE_SOURCE_DIR) + "/shapes", home / "shapes", std::filesystem::copy_options::recursive);
  auto spec = home / "templates" / "rmsnorm" / "spec.json";
  std::string text;
  {
    std::ifstream in(spec);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  // A launch rule that reads a parameter no variant defines.
  text = std::regex_replace(text, std::regex(R"re("grid": \["tokens"\])re"), R"re("grid": ["ceil_div(tokens, ROWS)"])re");
  { std::ofstream(spec) << text; }
  Run r = run_hone("ops", "HONE_HOME=" + home.string());
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find(spec.string() + ": variants[0].launch.grid uses 'ROWS'") != std::string::npos, r.output);

  { std::ofstream(spec) << "{ \"op\": \"rmsnorm\", "; }
  r = run_hone("compile --op rmsnorm --shape tokens=1,hidden=128", "HONE_HOME=" + home.string());
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find(spec.string() + ": is not valid JSON") != std::string::npos, r.output);
  std::filesystem::remove_all(home);
}

TEST_CASE("cli: export of a missing database exits 2") {
  auto d = scratch("export");
  Run r = run_hone("export --db " + (d / "none.db").string() + " --out " + (d / "cache").string());
  CHECK(r.code == 2);
  CHECK(r.output.find("no such database") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(d / "cache"));
  std::filesystem::remove_all(d);
}
