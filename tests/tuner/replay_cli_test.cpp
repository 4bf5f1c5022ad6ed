#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace fs = std::filesystem;

namespace {

hone::test::CommandResult run_hone(const std::string& args) {
  return hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone " + args);
}

std::string convolution() {
  const fs::path f = fs::path(HONE_SOURCE_DIR) / ".." / "shared" / "data" / "tuning-spaces" / "convolution_A100.json.gz";
  REQUIRE_MESSAGE(fs::is_regular_file(f), "the recorded tuning space is missing: expected " << f.string()
                                                                                           << " (../shared/data/tuning-spaces from the repository root)");
  return f.string();
}

}  // namespace

TEST_CASE("hone replay --json: one object per strategy and budget with the median and p90 ratios and each seed's ratio") {
  auto r = run_hone("replay --cache " + convolution() + " --strategy all --budget 20,40 --seeds 3 --json");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  auto j = nlohmann::json::parse(r.output);
  REQUIRE(j.is_array());
  std::set<std::string> strategies;
  for (const auto& o : j) {
    CHECK(o.size() == 5);
    const auto ratios = o.at("ratios").get<std::vector<double>>();
    REQUIRE(ratios.size() == 3);
    // three seeds: the median is the middle one
    auto sorted = ratios;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted[1] == o.at("median_ratio").get<double>());
    strategies.insert(o.at("strategy").get<std::string>());
    const auto budget = o.at("budget").get<int>();
    CHECK((budget == 20 || budget == 40));
    CHECK(o.at("median_ratio").get<double>() >= 1.0);
    CHECK(o.at("p90_ratio").get<double>() >= o.at("median_ratio").get<double>());
  }
  CHECK(strategies == std::set<std::string>{"auto", "random", "annealing", "genetic", "model"});
  CHECK(j.size() == 10);
}

TEST_CASE("hone replay: a table by default, and bad input exits 2 naming the problem") {
  auto r = run_hone("replay --cache " + convolution() + " --strategy random --budget 30 --seeds 2");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(r.output.find("4362 configurations (4201 valid)") != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find("median") != std::string::npos, r.output);

  auto missing = run_hone("replay --cache /nonexistent/cache.json");
  CHECK(missing.code == 2);
  CHECK_MESSAGE(missing.output.find("/nonexistent/cache.json") != std::string::npos, missing.output);
  CHECK(run_hone("replay --cache " + convolution() + " --strategy tabu").code == 2);
  CHECK(run_hone("replay --cache " + convolution() + " --budget 0").code == 2);
  CHECK(run_hone("replay").code == 2);
}
