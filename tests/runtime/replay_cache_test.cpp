#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input_error.hpp"
#include "runtime/replay_cache.hpp"

using namespace hone;
namespace fs = std::filesystem;

namespace {

// The recorded spaces live beside the repository (../shared/data/tuning-spaces), never in it.
fs::path spaces_dir() {
  const fs::path d = fs::path(HONE_SOURCE_DIR) / ".." / "shared" / "data" / "tuning-spaces";
  REQUIRE_MESSAGE(fs::is_directory(d), "the recorded tuning spaces are missing: expected Kernel Tuner cache files in " << d.string()
                                                                                   << " (../shared/data/tuning-spaces from the repository root)");
  return d;
}

fs::path scratch(const std::string& name) {
  auto d = fs::temp_directory_path() / ("hone-replay-cache-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

std::string decompressed(const fs::path& gz, const fs::path& dir) {
  const fs::path out = dir / "plain.json";
  REQUIRE(std::system(("gzip -dc '" + gz.string() + "' > '" + out.string() + "'").c_str()) == 0);
  return slurp(out);
}

std::string message_of(const fs::path& file) {
  try {
    read_replay_cache(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("replay cache: each shared space is read whole, with its size, failures and optimum") {
  struct Expected {
    const char* file;
    std::size_t configs, valid, params;
    double best_ms;
  };
  // The figures of SOURCES.md beside the files.
  for (const Expected& x : {Expected{"gemm_RTX_3090.json.gz", 17956, 17956, 15, 5.658},
                            Expected{"convolution_A100.json.gz", 4362, 4201, 10, 0.5536},
                            Expected{"dedispersion_A100.json.gz", 11130, 11130, 8, 68.12}}) {
    CAPTURE(x.file);
    ReplayCache c = read_replay_cache(spaces_dir() / x.file);
    CHECK(c.entries.size() == x.configs);
    CHECK(c.valid() == x.valid);
    CHECK(c.params.size() == x.params);
    CHECK_FALSE(c.unclosed);
    REQUIRE(c.best());
    CHECK(*c.entries[*c.best()].time_ms == doctest::Approx(x.best_ms).epsilon(1e-3));
    for (const auto& e : c.entries) {
      REQUIRE(e.values.size() == c.params.size());
      CHECK(e.time_ms.has_value() == e.failure.empty());
    }
  }
}

TEST_CASE("replay cache: failures keep Kernel Tuner's marker, and each entry its parameter values") {
  ReplayCache c = read_replay_cache(spaces_dir() / "convolution_A100.json.gz");
  std::size_t runtime = 0, compilation = 0;
  for (const auto& e : c.entries) {
    runtime += e.failure == "RuntimeFailedConfig";
    compilation += e.failure == "CompilationFailedConfig";
  }
  CHECK(runtime == 155);
  CHECK(compilation == 6);
  CHECK(runtime + compilation == c.entries.size() - c.valid());
  // The first entry of the file, in the file's order: "16,1,1,1,0,0,0,1,15,15".
  CHECK(c.entries.front().key == "16,1,1,1,0,0,0,1,15,15");
  CHECK(c.entries.front().values == std::vector<double>{16, 1, 1, 1, 0, 0, 0, 1, 15, 15});
  CHECK(c.entries.front().time_ms == doctest::Approx(3.8753279224038124));
  CHECK(c.entries.front().cost_ms > 0);
}

TEST_CASE("replay cache: a copy left unclosed or cut short is still read") {
  const fs::path dir = scratch("truncated");
  const std::string text = decompressed(spaces_dir() / "convolution_A100.json.gz", dir);
  const std::size_t whole = read_replay_cache(dir / "plain.json").entries.size();

  SUBCASE("without the closing braces, as an interrupted Kernel Tuner run leaves it") {
    // Without the braces that close "cache" and the file: it ends with the last entry's brace.
    const auto cache_close = text.find_last_of('}', text.find_last_of('}') - 1);
    spit(dir / "unclosed.json", text.substr(0, cache_close) + ",\n");
    ReplayCache c = read_replay_cache(dir / "unclosed.json");
    CHECK(c.unclosed);
    CHECK(c.entries.size() == whole);
  }
  SUBCASE("cut inside an entry: that entry is dropped") {
    spit(dir / "cut.json", text.substr(0, text.size() * 2 / 3));
    ReplayCache c = read_replay_cache(dir / "cut.json");
    CHECK(c.unclosed);
    CHECK(c.entries.size() > whole / 2);
    CHECK(c.entries.size() < whole);
  }
  SUBCASE("a gzip stream cut short") {
    const std::string gz = slurp(spaces_dir() / "convolution_A100.json.gz");
    spit(dir / "cut.json.gz", gz.substr(0, gz.size() / 2));
    ReplayCache c = read_replay_cache(dir / "cut.json.gz");
    CHECK(c.unclosed);
    CHECK(c.entries.size() > 0);
    CHECK(c.entries.size() < whole);
  }
  fs::remove_all(dir);
}

TEST_CASE("replay cache: a malformed file is an error that names the file") {
  const fs::path dir = scratch("malformed");
  const std::string head = R"({"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]}, "cache": {)";
  spit(dir / "syntax.json", head + R"("1": {"a": 1, "time": 1.5} "2": {"a": 2, "time": 2.5}}})");
  spit(dir / "not-a-cache.json", "[1, 2, 3]");
  spit(dir / "no-keys.json", R"({"cache": {"1": {"time": 1}}})");
  spit(dir / "empty.json", head + "}}");
  spit(dir / "bad-value.json", head + R"("3": {"a": [3], "time": 1}}})");
  for (const char* f : {"syntax.json", "not-a-cache.json", "no-keys.json", "empty.json", "bad-value.json", "missing.json"}) {
    CAPTURE(f);
    const std::string m = message_of(dir / f);
    CHECK_MESSAGE(m.find((dir / f).string()) != std::string::npos, m);
  }
  fs::remove_all(dir);
}

TEST_CASE("replay cache: string values are their index in tune_params, failure markers are failures") {
  const fs::path dir = scratch("strings");
  spit(dir / "c.json", R"({"tune_params_keys": ["t", "n"], "tune_params": {"t": ["float", "half"], "n": [1, 2]},
    "cache": {"half,2": {"t": "half", "n": 2, "time": 0.5},
              "float,1": {"t": "float", "n": 1, "time": "CompilationFailedConfig"},
              "float,2": {"time": 0.25}}})");
  ReplayCache c = read_replay_cache(dir / "c.json");
  REQUIRE(c.entries.size() == 3);
  CHECK(c.entries[0].values == std::vector<double>{1, 2});
  CHECK(c.entries[1].failure == "CompilationFailedConfig");
  CHECK_FALSE(c.entries[1].time_ms);
  CHECK(c.entries[2].values == std::vector<double>{0, 2});  // from the key when the entry lacks them
  CHECK(c.best() == 2u);
  fs::remove_all(dir);
}
