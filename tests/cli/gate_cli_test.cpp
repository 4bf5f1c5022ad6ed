// `hone gate` and `hone export --format` as CI runs them: exit 0 on a fresh export, exit 1 with a
// JUnit failure when a cached kernel turns wrong, exit 2 for a cache that cannot be trusted.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/json_file.hpp"
#include "core/sha256.hpp"
#include "support/run_command.hpp"

namespace {

using Run = hone::test::CommandResult;

Run hone_cli(const std::string& args) { return hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone " + args); }

// A real job (tests/data/shapes/tiny.json on emu, budget 2), exported.
struct ExportedJob {
  std::filesystem::path dir;
  ExportedJob(const std::string& name) : dir(std::filesystem::temp_directory_path() / ("hone-gate-cli-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    Run r = hone_cli("tune --model " + std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json --device emu --budget 2 --db " + db());
    REQUIRE_MESSAGE(r.code == 0, r.output);
    r = hone_cli("export --db " + db() + " --out " + cache());
    REQUIRE_MESSAGE(r.code == 0, r.output);
  }
  ~ExportedJob() { std::filesystem::remove_all(dir); }
  std::string db() const { return (dir / "tiny.db").string(); }
  std::string cache() const { return (dir / "cache").string(); }
  std::string junit() const { return (dir / "junit.xml").string(); }
  nlohmann::json manifest() const { return hone::read_json_file(dir / "cache" / "manifest.json"); }
  void write_manifest(const nlohmann::json& m) const { std::ofstream(dir / "cache" / "manifest.json") << m.dump(2); }
};

}  // namespace

TEST_CASE("cli: gate passes on a fresh export, with JUnit and Markdown for CI") {
  ExportedJob job("pass");
  const std::string md = (job.dir / "summary.md").string();
  Run r = hone_cli("gate --cache " + job.cache() + " --device emu --junit " + job.junit() + " --markdown " + md);
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(r.output.find("## hone gate: PASS") != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find("2 of 2 entries pass on device `emu`") != std::string::npos, r.output);
  const std::string x = hone::read_text_file(job.junit());
  CHECK(x.find("tests=\"2\" failures=\"0\"") != std::string::npos);
  CHECK(x.find("<failure") == std::string::npos);
  CHECK(hone::read_text_file(md).find("## hone gate: PASS") != std::string::npos);
  // Compile-only, and against itself as the baseline.
  CHECK(hone_cli("gate --cache " + job.cache() + " --device none").code == 0);
  r = hone_cli("gate --cache " + job.cache() + " --baseline " + job.cache() + " --device emu");
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(r.output.find(" vs ") != std::string::npos, r.output);  // both CPU times reported
}

TEST_CASE("cli: gate fails with exit 1 and a JUnit failure when a cached kernel's source is replaced with a wrong one") {
  ExportedJob job("wrong");
  auto m = job.manifest();
  auto& e = m["entries"][0];
  const auto source = job.dir / "cache" / e["files"]["source"].get<std::string>();
  std::string text = hone::read_text_file(source);
  // The mean of squares over twice the row: every output off by sqrt(2). A re-export of a broken
  // kernel, so its SHA-256 is recorded too: the cache is trustworthy, the kernel is wrong. The
  // entry is a template's kernel, or the reference where no template beat it.
  const bool reference = e["origin"] == "reference";
  const std::string right = reference ? "sum_sq / hidden" : "total / HIDDEN + eps";
  REQUIRE_MESSAGE(text.find(right) != std::string::npos, text);
  text.replace(text.find(right), right.size(), reference ? "sum_sq / (2 * hidden)" : "total / (2 * HIDDEN) + eps");
  std::ofstream(source) << text;
  // Kernels that win several buckets are written once: every entry naming the file is re-signed.
  const auto file = e["files"]["source"];
  int wrong_entries = 0;
  for (auto& other : m["entries"])
    if (other["files"]["source"] == file) {
      other["sha256"]["source"] = hone::sha256_hex(text);
      ++wrong_entries;
    }
  job.write_manifest(m);

  Run r = hone_cli("gate --cache " + job.cache() + " --device emu --junit " + job.junit());
  CHECK_MESSAGE(r.code == 1, r.output);
  CHECK_MESSAGE(r.output.find("## hone gate: FAIL") != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find("rejected at the reference stage") != std::string::npos, r.output);
  const std::string x = hone::read_text_file(job.junit());
  CHECK(x.find("tests=\"2\" failures=\"" + std::to_string(wrong_entries) + "\"") != std::string::npos);
  CHECK(x.find("<failure message=\"wrong: rejected at the reference stage") != std::string::npos);
  CHECK(x.find(e["entry"].get<std::string>()) != std::string::npos);
}

TEST_CASE("cli: gate refuses a cache it cannot trust with exit 2, naming the file") {
  ExportedJob job("refuse");
  const auto m = job.manifest();
  const auto cubin = job.dir / "cache" / m["entries"][1]["files"]["cubin"].get<std::string>();
  {
    std::ofstream(cubin, std::ios::app) << "x";
  }
  Run r = hone_cli("gate --cache " + job.cache() + " --device none --junit " + job.junit());
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find(cubin.string() + ": SHA-256 mismatch") != std::string::npos, r.output);
  CHECK_FALSE(std::filesystem::exists(job.junit()));  // nothing half-written

  auto newer = m;
  newer["format_version"] = 2;
  job.write_manifest(newer);
  r = hone_cli("gate --cache " + job.cache() + " --device none");
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find("manifest.json: format version 2 is newer than this loader reads (1)") != std::string::npos, r.output);

  CHECK(hone_cli("gate --cache " + (job.dir / "none").string()).code == 2);
  CHECK(hone_cli("gate --cache " + job.cache() + " --device gpu").code == 2);
  CHECK(hone_cli("gate --cache " + job.cache() + " --max-regression -5").code == 2);
  CHECK(hone_cli("gate").code == 2);
}

TEST_CASE("cli: gate --shard i/n checks every n-th entry from the i-th, says which, and refuses bad values with exit 2") {
  ExportedJob job("shard");
  for (int i = 0; i < 2; ++i) {
    const std::string junit = (job.dir / ("shard" + std::to_string(i) + ".xml")).string();
    Run r = hone_cli("gate --cache " + job.cache() + " --device none --shard " + std::to_string(i) + "/2 --junit " + junit);
    CHECK_MESSAGE(r.code == 0, r.output);
    const std::string said = "shard " + std::to_string(i) + "/2: checking entries " + std::to_string(i) + " of the cache's 2";
    CHECK_MESSAGE(r.output.find("gate: " + said) != std::string::npos, r.output);
    CHECK_MESSAGE(r.output.find("1 of 1 entries pass") != std::string::npos, r.output);
    const std::string x = hone::read_text_file(junit);
    CHECK(x.find("tests=\"1\"") != std::string::npos);
    CHECK(x.find("name=\"shard\" value=\"" + std::to_string(i) + "/2\"") != std::string::npos);
  }
  for (const std::string bad : {"2/2", "0/0", "1", "a/b", "-1/2"}) {
    CAPTURE(bad);
    Run r = hone_cli("gate --cache " + job.cache() + " --device none --shard " + bad);
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.output.find("--shard '" + bad + "'") != std::string::npos, r.output);
  }
}

TEST_CASE("cli: export --format kernel-tuner and kernel-launcher write their formats, refuse to replace other folders") {
  ExportedJob job("formats");
  Run r = hone_cli("export --db " + job.db() + " --out " + (job.dir / "t4").string() + " --format kernel-tuner");
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(r.output.find("wrote 4 results in 2 Kernel Tuner T4 files") != std::string::npos, r.output);
  r = hone_cli("export --db " + job.db() + " --out " + (job.dir / "wisdom").string() + " --format kernel-launcher");
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK(std::filesystem::exists(job.dir / "wisdom" / "rmsnorm_row_block_hidden256.wisdom"));
  // The kernel cache is not replaced by another format, and an unknown format is bad usage.
  r = hone_cli("export --db " + job.db() + " --out " + job.cache() + " --format kernel-tuner");
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find("is not an earlier `hone export --format kernel-tuner`") != std::string::npos, r.output);
  CHECK(std::filesystem::exists(job.dir / "cache" / "manifest.json"));
  CHECK(hone_cli("export --db " + job.db() + " --out x --format triton").code == 2);
}
