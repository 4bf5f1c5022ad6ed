// Stopping a running `hone tune` with a signal, as people and schedulers do: Ctrl-C in a terminal,
// `timeout -s INT` (which delivers the signal twice: to hone and to its process group), and the
// SIGTERM that Slurm and Kubernetes send before they kill. Each stop is orderly: the results so far
// are stored, the table and the "interrupted" line are printed, and a rerun continues.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/run_command.hpp"

namespace {

struct Stopped {
  int code = -1;
  std::string output;
};

// Starts the job in the background, waits until its second task has begun, sends `signals`
// (e.g. "INT INT") a tenth of a second apart, and returns hone's exit status and everything it printed.
Stopped tune_and_signal(const std::filesystem::path& dir, const std::string& signals) {
  const std::string hone = std::string(HONE_BINARY_DIR) + "/hone";
  const std::string log = (dir / "out.log").string();
  const std::string script =
      hone + " tune --model " + HONE_SOURCE_DIR + "/shapes/qwen3-8b.json --ops silu_mul --device emu --budget 4 --db " +
      (dir / "job.db").string() + " > " + log + " 2>&1 & pid=$!\n" +
      "for i in $(seq 600); do grep -q '^\\[2/' " + log + " && break; sleep 0.05; done\n" +
      "for s in " + signals + "; do kill -s $s $pid; sleep 0.1; done\n" +
      "wait $pid; echo \"exit=$?\"; cat " + log;
  const auto r = hone::test::run_command("bash -c '" + [&] {
    std::string quoted;
    for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted;
  }() + "'");
  Stopped s;
  const auto at = r.output.find("exit=");
  REQUIRE_MESSAGE(at != std::string::npos, r.output);
  s.code = std::stoi(r.output.substr(at + 5));
  s.output = r.output;
  return s;
}

std::filesystem::path scratch(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("hone-signal-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("tune signals: a SIGINT delivered twice (timeout -s INT) stops the job in order, and the rerun continues") {
  const auto dir = scratch("int");
  const Stopped s = tune_and_signal(dir, "INT INT");
  CHECK_MESSAGE(s.code == 130, s.output);
  CHECK_MESSAGE(s.output.find("interrupted: the results so far are stored") != std::string::npos, s.output);
  const auto rerun = hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone tune --model " + HONE_SOURCE_DIR +
                                             "/shapes/qwen3-8b.json --ops silu_mul --device emu --budget 4 --db " +
                                             (dir / "job.db").string());
  CHECK_MESSAGE(rerun.code == 0, rerun.output);
  CHECK_MESSAGE(rerun.output.find("done in an earlier run") != std::string::npos, rerun.output);
  std::filesystem::remove_all(dir);
}

TEST_CASE("tune signals: SIGTERM from a scheduler stops the job in order with exit 143") {
  const auto dir = scratch("term");
  const Stopped s = tune_and_signal(dir, "TERM");
  CHECK_MESSAGE(s.code == 143, s.output);
  CHECK_MESSAGE(s.output.find("interrupted: the results so far are stored") != std::string::npos, s.output);
  std::filesystem::remove_all(dir);
}
