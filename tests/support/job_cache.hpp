#pragma once
// A real tuning job's kernel cache for the serving tests: the `hone` binary tunes
// tests/data/shapes/tiny.json on emu (rmsnorm, hidden=256, tokens in buckets 1..2 and 3..4,
// budget 2) and exports it, as a user would. About half a second. Another model file may be
// given, with the environment to run hone in (a HONE_HOME holding test families).
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "support/run_command.hpp"

namespace hone::test {

struct JobCache {
  std::filesystem::path dir, db, cache;

  /// The tiny job; or `model` tuned with `env` before the commands (HONE_HOME=...), as given.
  explicit JobCache(const std::string& name, const std::string& model = std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json",
                    const std::string& env = "") {
    static std::atomic<int> n{0};
    dir = std::filesystem::temp_directory_path() / ("hone-serving-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    db = dir / "tiny.db";
    cache = dir / "cache";
    const std::string hone = std::string(HONE_BINARY_DIR) + "/hone";
    const std::string prefix = env.empty() ? "" : env + " ";
    auto tune = run_command(prefix + hone + " tune --model " + model + " --device emu --budget 2 --db " + db.string());
    REQUIRE_MESSAGE(tune.code == 0, tune.output);
    auto exported = run_command(prefix + hone + " export --db " + db.string() + " --out " + cache.string());
    REQUIRE_MESSAGE(exported.code == 0, exported.output);
  }
  ~JobCache() { std::filesystem::remove_all(dir); }
  JobCache(const JobCache&) = delete;
  JobCache& operator=(const JobCache&) = delete;

  std::string manifest() const { return (cache / "manifest.json").string(); }

  /// tests/serving/python/<script> run by python3 on this cache, through the Python module and
  /// the C ABI library built here.
  CommandResult run_python(const std::string& script) const {
    const std::string src = HONE_SOURCE_DIR;
    return run_command("HONE_KERNEL_CACHE_LIB=" + std::string(HONE_BINARY_DIR) + "/libhone_kernel_cache.so PYTHONPATH=" + src +
                       "/serving/python HONE_TEST_CACHE=" + cache.string() + " python3 -B " + src + "/tests/serving/python/" + script +
                       " -v");
  }
};

}  // namespace hone::test
