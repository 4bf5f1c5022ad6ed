#pragma once
// `hone gate`: the CI regression gate over an exported kernel cache. Every entry is validated
// again on the device at hand (the five stages, with the entry's source, launch rule and
// bucket), its source is compiled again with this NVRTC and the recorded options, and the PTX
// and CUBIN an engine loads must be byte for byte what that compile gives (NVRTC is
// deterministic: the same source, options and compiler build give the same bytes), so that what
// was validated is what runs; its resource usage is compared with the recorded one, and on a GPU
// its time is compared with the baseline's by a noise-aware test. On emu the times are CPU
// times: reported, never gated.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/shard.hpp"
#include "gate/timing_regression.hpp"
#include "validator/evaluation.hpp"

namespace hone {

struct GateOptions {
  std::filesystem::path cache;
  std::filesystem::path baseline;   // another cache whose kernels are re-timed as the baseline; empty: the times recorded in `cache`
  std::string device = "auto";      // auto | emu | cuda | none (static checks and resources only)
  double max_regression_pct = 10;
  TimingOptions timing;
  double timeout_s = 0;               // --timeout: each launch's limit; 0: derived from the reference's launch
  /// Where this NVRTC is not the one that compiled the cache (another version or build, other
  /// options), the binaries cannot be proven: a failure, unless this accepts it (then a note).
  bool accept_other_compiler = false;
  /// --shard i/n: only every n-th entry of the manifest from the i-th, so that n CI jobs gate a
  /// cache in parallel and together check every entry once.
  Shard shard;
};

/// Registers and spill bytes as ptxas reports them.
struct ResourceFigures {
  int registers = -1;   // -1: unknown
  int spill_bytes = 0;  // stores + loads
};

/// Where the first byte of `got` differs from `want` ("at byte 312 of 13648", "the sizes differ:
/// 13648 and 13712 bytes"), "" when they are equal.
std::string first_difference(const std::string& want, const std::string& got);

/// What got worse from `recorded` to `now` (a new toolkit adding registers or spills), one line
/// each; empty when nothing did.
std::vector<std::string> resource_regressions(const ResourceFigures& recorded, const ResourceFigures& now);

struct GateEntryResult {
  std::size_t index = 0;     // the entry's index in the cache's manifest
  std::string name;          // "rmsnorm hidden=256 tokens=1..2"
  std::string entry;         // the kernel's name
  std::string op;
  std::string arch;
  std::string validation;    // "passed every stage" or the stage and reason it was rejected at
  std::string resources;     // "16 registers, 0 spill bytes (recorded: 16, 0)"
  std::string binaries;      // "the PTX and CUBIN are what the source compiles to (nvrtc 13.0)", or why not proven
  std::string timer;         // "gpu" | "cpu" | "" when not timed
  double time_ms = 0;        // measured now
  double recorded_ms = 0;    // the time the cache recorded (on the device it names)
  double baseline_ms = 0;    // what it was compared with, 0 when nothing
  std::string baseline_from; // "re-timed from the baseline cache" | "recorded in the cache" | ""
  std::string timing;        // the timing verdict in words
  std::vector<std::string> failures;
  double seconds = 0;        // how long its checks took

  bool pass() const { return failures.empty(); }
};

struct GateReport {
  std::string cache;
  std::string baseline;
  std::string device;        // "emu", "cuda", "none"
  double max_regression_pct = 0;
  Shard shard;
  std::size_t cache_entries = 0;  // in the whole cache, before sharding
  std::vector<GateEntryResult> entries;

  /// Which entries this run checked, as checked_entries() says it.
  std::string checked() const;

  bool pass() const;
  std::size_t failures() const;
};

/// "shard 1/2: checking entries 1, 3 of the cache's 4" (`indices` are the entries taken), or
/// "checking all 4 entries of the cache" when the gate is not sharded.
std::string checked_entries(const Shard& shard, const std::vector<std::size_t>& indices, std::size_t total);

/// Runs the gate. Throws InputError (exit 2) for a cache or baseline that cannot be trusted:
/// a malformed or newer manifest, a missing file, a SHA-256 mismatch. `progress` gets, before
/// anything runs, which entries this shard checks and how long that is expected to take
/// (validator/job_estimate.hpp), then one line per entry.
GateReport run_gate(const GateOptions& options, const std::function<void(const std::string&)>& progress = {});

}  // namespace hone
