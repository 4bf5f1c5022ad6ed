#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

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

TEST_CASE("hone replay --trace: one JSON line per search, each evaluated configuration with its key and ratio") {
  const fs::path dir = fs::temp_directory_path() / ("hone-replay-trace-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path trace = dir / "trace.jsonl";
  auto r = run_hone("replay --cache " + convolution() + " --strategy model --budget 20,30 --seeds 2 --json --trace " + trace.string());
  REQUIRE_MESSAGE(r.code == 0, r.output);
  const auto scores = nlohmann::json::parse(r.output);
  std::ifstream in(trace);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 4);
  for (const auto& l : lines) {
    CHECK(l.at("strategy") == "model");
    const auto budget = l.at("budget").get<std::size_t>();
    const auto seed = l.at("seed").get<std::size_t>();
    REQUIRE((seed == 1 || seed == 2));
    const auto& evaluated = l.at("evaluated");
    REQUIRE(evaluated.size() == budget);
    // Each is [key, time over the optimum], null for a failed configuration; the search's ratio is
    // the best of them, the same as --json's for that seed.
    double best = INFINITY;
    std::set<std::string> keys;
    for (const auto& e : evaluated) {
      keys.insert(e.at(0).get<std::string>());
      if (!e.at(1).is_null()) best = std::min(best, e.at(1).get<double>());
    }
    CHECK(keys.size() == budget);
    CHECK(l.at("ratio").get<double>() == doctest::Approx(best));
    for (const auto& s : scores)
      if (s.at("budget") == budget) CHECK(s.at("ratios").at(seed - 1).get<double>() == doctest::Approx(best));
  }
  // A trace that cannot be written is bad input, named before any search runs.
  auto bad = run_hone("replay --cache " + convolution() + " --strategy model --budget 20 --seeds 1 --trace " + (dir / "none" / "t.jsonl").string());
  CHECK(bad.code == 2);
  CHECK_MESSAGE(bad.output.find((dir / "none" / "t.jsonl").string()) != std::string::npos, bad.output);
  CHECK_MESSAGE(bad.output.find("median") == std::string::npos, bad.output);
  fs::remove_all(dir);
}
