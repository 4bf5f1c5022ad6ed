#pragma once
// A Kernel Tuner cache file: configurations measured on a real GPU with their times or failures.
// The replay device answers a configuration with what was recorded here, so that search
// strategies can be measured without a GPU.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hone {

/// One configuration of the cache.
struct ReplayEntry {
  std::string key;                // Kernel Tuner's key: the parameter values joined by commas
  std::vector<double> values;     // one per parameter: the number, or for a non-numeric value its index in tune_params
  std::optional<double> time_ms;  // empty: the configuration failed
  std::string failure;            // what Kernel Tuner recorded instead of a time ("RuntimeFailedConfig", ...)
  double cost_ms = 0;             // compile, verification and benchmark time: what measuring it took
};

struct ReplayCache {
  std::filesystem::path file;
  std::string device_name, kernel_name;
  std::vector<std::string> params;  // tune_params_keys, in order
  std::vector<ReplayEntry> entries; // the cache's configurations, in the file's order: the space
  bool unclosed = false;            // the file lacked its closing braces (a run that stopped mid-way)

  std::size_t valid() const;
  /// The entry with the best (lowest) valid time; empty when none is valid.
  std::optional<std::size_t> best() const;
};

/// Reads a cache file, plain JSON or gzip. Tolerates what an interrupted Kernel Tuner run leaves:
/// a file without its closing braces, or one cut inside an entry (that entry is dropped).
/// The time is always the objective. Throws InputError naming the file when it is not a cache.
ReplayCache read_replay_cache(const std::filesystem::path& file);

}  // namespace hone
