// The gate's parts: the noise-aware timing test, the resource comparison, its outputs, and the
// gate itself on a real job's cache whose recorded resources claim fewer registers than this
// toolkit gives (what a new toolkit that adds registers looks like).
#include <doctest/doctest.h>

#include <fstream>
#include <map>

#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/sha256.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/job_cache.hpp"
#include "gate/cache_gate.hpp"
#include "gate/gate_output.hpp"
#include "validator/candidate_validation.hpp"

using namespace hone;

TEST_CASE("gate: a slowdown fails only beyond the allowed percentage and beyond the noise") {
  // 20% slower, quiet measurements: a regression at 10%, not at 25%.
  CHECK(check_regression({0.120, 0.02}, {0.100, 0.02}, 10).regressed);
  CHECK_FALSE(check_regression({0.120, 0.02}, {0.100, 0.02}, 25).regressed);
  // 20% slower, but each run spread over 40%: noise, said so, not failed.
  const auto noisy = check_regression({0.120, 0.40}, {0.100, 0.40}, 10);
  CHECK_FALSE(noisy.regressed);
  CHECK_MESSAGE(noisy.explanation.find("within the noise") != std::string::npos, noisy.explanation);
  // Faster is never a regression.
  CHECK_FALSE(check_regression({0.050, 0}, {0.100, 0}, 0).regressed);
  CHECK(check_regression({0.120, 0.02}, {0.100, 0.02}, 10).ratio == doctest::Approx(1.2));
  CHECK_FALSE(check_regression({0, 0}, {0.1, 0}, 10).regressed);
}

TEST_CASE("gate: more registers or spills than recorded is a regression, fewer is not") {
  CHECK(resource_regressions({32, 0}, {32, 0}).empty());
  CHECK(resource_regressions({32, 0}, {24, 0}).empty());
  CHECK(resource_regressions({-1, 0}, {40, 0}).empty());  // nothing recorded to compare with
  auto r = resource_regressions({32, 0}, {40, 16});
  REQUIRE(r.size() == 2);
  CHECK(r[0] == "40 registers per thread, recorded 32");
  CHECK(r[1] == "16 bytes of register spills, recorded 0");
}

TEST_CASE("gate: JUnit and Markdown carry every entry, failures with their reasons, escaped") {
  GateReport report;
  report.cache = "cache<1>";
  report.device = "emu";
  report.max_regression_pct = 10;
  GateEntryResult ok;
  ok.name = "rmsnorm hidden=256 tokens=1..2";
  ok.entry = "k_ok";
  ok.op = "rmsnorm";
  ok.validation = "passed every stage on emu";
  GateEntryResult bad = ok;
  bad.entry = "k_bad";
  bad.name = "rmsnorm hidden=256 tokens=3..4";
  bad.validation = "rejected at the reference stage: out[0] got 5 & expected <3> | 'x'";
  bad.failures.push_back("wrong: " + bad.validation);
  report.entries = {ok, bad};
  CHECK_FALSE(report.pass());
  CHECK(report.failures() == 1);

  const std::string x = gate_junit(report);
  CHECK(x.find("tests=\"2\" failures=\"1\"") != std::string::npos);
  CHECK(x.find("<testcase classname=\"hone.gate.rmsnorm\" name=\"rmsnorm hidden=256 tokens=1..2 (k_ok, )\"") != std::string::npos);
  CHECK(x.find("<failure message=\"wrong: rejected at the reference stage: out[0] got 5 &amp; expected &lt;3&gt; | &apos;x&apos;\" type=\"wrong\">") !=
        std::string::npos);
  CHECK(x.find("name=\"hone gate cache&lt;1&gt;\"") != std::string::npos);
  CHECK(x.find("<x>") == std::string::npos);

  const std::string md = gate_markdown(report);
  CHECK(md.find("## hone gate: FAIL") != std::string::npos);
  CHECK(md.find("| **FAIL** | rmsnorm hidden=256 tokens=3..4 | `k_bad` |") != std::string::npos);
  CHECK(md.find("expected <3> \\| 'x'") != std::string::npos);  // a pipe would end the table cell
  CHECK(md.find("Times on emu are CPU times") != std::string::npos);
}

TEST_CASE("gate: a toolkit that gives more registers than recorded fails the entry, with the figures") {
  test::JobCache job("gate-registers");
  auto m = read_json_file(job.manifest());
  const int registers = m["entries"][0]["resources"]["registers"];
  REQUIRE(registers > 1);
  m["entries"][0]["resources"]["registers"] = registers - 1;  // as if recorded by a toolkit that needed one fewer
  std::ofstream(job.manifest()) << m.dump(2);

  GateOptions o;
  o.cache = job.cache;
  o.device = "none";  // compile-only: resources need no device
  const GateReport report = run_gate(o);
  REQUIRE(report.entries.size() == 2);
  CHECK_FALSE(report.pass());
  CHECK(report.entries[1].pass());
  REQUIRE(report.entries[0].failures.size() == 1);
  CHECK_MESSAGE(report.entries[0].failures[0].find("resources: " + std::to_string(registers) + " registers per thread, recorded " +
                                                   std::to_string(registers - 1)) != std::string::npos,
                report.entries[0].failures[0]);
  CHECK(report.entries[0].validation == "passed the static stage (device none)");
}

TEST_CASE("gate: against a baseline cache, emu re-times both kernels and reports CPU times without gating") {
  test::JobCache job("gate-baseline");
  GateOptions o;
  o.cache = job.cache;
  o.baseline = job.cache;
  o.device = "emu";
  o.max_regression_pct = 0;  // even a hair slower would fail on a GPU: on emu nothing is gated
  const GateReport report = run_gate(o);
  CHECK(report.pass());
  for (const auto& e : report.entries) {
    CHECK(e.timer == "cpu");
    CHECK(e.time_ms > 0);
    CHECK(e.baseline_ms > 0);
    CHECK(e.baseline_from == "re-timed from the baseline cache");
    CHECK_MESSAGE(e.timing.find("reported, not gated") != std::string::npos, e.timing);
  }
}

TEST_CASE("gate: the cache's PTX and CUBIN are proven to be what its source compiles to, byte for byte") {
  test::JobCache job("gate-binaries");
  GateOptions o;
  o.cache = job.cache;
  o.device = "none";
  const GateReport report = run_gate(o);
  REQUIRE_MESSAGE(report.pass(), gate_markdown(report));
  for (const auto& e : report.entries)
    CHECK_MESSAGE(e.binaries == "the PTX and CUBIN are what its source compiles to (" + nvrtc_identity() + ", byte for byte)", e.binaries);
  // The manifest says how they were compiled.
  const auto m = read_json_file(job.manifest());
  CHECK(m["entries"][0]["build"]["compiler"] == nvrtc_identity());
  CHECK(m["entries"][0]["build"]["options"] == nlohmann::json(nvrtc_options("sm_90")));
}

TEST_CASE("gate: a CUBIN swapped for another kernel's, the manifest made consistent, fails: the source still validates") {
  test::JobCache job("gate-swapped");
  auto m = read_json_file(job.manifest());
  auto& e = m["entries"][0];
  // Another kernel with the same entry and signature: the reference kernel, or a template, with
  // its output doubled; compiled by this very NVRTC, so only its bytes give it away.
  const std::string source = read_text_file(job.cache / e["files"]["source"].get<std::string>());
  const std::string marker = "__float2bfloat16(";
  REQUIRE(source.find(marker) != std::string::npos);
  std::string other = source;
  for (std::size_t at = other.find(marker); at != std::string::npos; at = other.find(marker, at + marker.size() + 7))
    other.insert(at + marker.size(), "2.0f * ");
  const NvrtcResult swapped = nvrtc_compile({other, e["entry"].get<std::string>() + ".cu", "sm_90", {}});
  REQUIRE_MESSAGE(swapped.ok, swapped.log);
  const auto cubin = job.cache / e["files"]["cubin"].get<std::string>();
  { std::ofstream(cubin, std::ios::binary | std::ios::trunc) << swapped.cubin; }
  for (auto& any : m["entries"])
    if (any["files"]["cubin"] == e["files"]["cubin"]) any["sha256"]["cubin"] = sha256_hex(swapped.cubin);
  std::ofstream(job.manifest()) << m.dump(2);

  GateOptions o;
  o.cache = job.cache;
  o.device = "emu";
  const GateReport report = run_gate(o);
  CHECK_FALSE(report.pass());
  const GateEntryResult& r = report.entries[0];
  // The source is right (a template's, or the reference's own, then run rather than compared with
  // itself): only the binary is not.
  CHECK_MESSAGE((r.validation == "passed every stage on emu" || r.validation == std::string("ran on emu: ") + kReferenceItself),
                r.validation);
  REQUIRE(!r.failures.empty());
  CHECK_MESSAGE(r.failures[0].find("binaries: the CUBIN (" + e["files"]["cubin"].get<std::string>() + ") differs at byte ") == 0,
                r.failures[0]);
  CHECK_MESSAGE(r.failures[0].find("an engine would run a kernel other than the one validated") != std::string::npos, r.failures[0]);
  CHECK(gate_junit(report).find("type=\"binaries\"") != std::string::npos);
}

TEST_CASE("gate: binaries compiled by another NVRTC cannot be proven: a failure unless accepted") {
  test::JobCache job("gate-other-nvrtc");
  auto m = read_json_file(job.manifest());
  for (auto& e : m["entries"]) e["resources"]["compiler"] = "nvrtc 12.4";
  std::ofstream(job.manifest()) << m.dump(2);
  GateOptions o;
  o.cache = job.cache;
  o.device = "none";
  GateReport report = run_gate(o);
  CHECK_FALSE(report.pass());
  for (const auto& e : report.entries) {
    REQUIRE(e.failures.size() == 1);
    CHECK_MESSAGE(e.failures[0].find("binaries: cannot prove that the cache's PTX and CUBIN are what its source compiles to: it was "
                                     "compiled by nvrtc 12.4, this is " + nvrtc_identity()) == 0,
                  e.failures[0]);
  }
  o.accept_other_compiler = true;
  report = run_gate(o);
  CHECK_MESSAGE(report.pass(), gate_markdown(report));
  CHECK(report.entries[0].binaries.find("not proven: it was compiled by nvrtc 12.4") == 0);
}

TEST_CASE("gate: first_difference says where two binaries part") {
  CHECK(first_difference("abc", "abc") == "");
  CHECK(first_difference("abc", "abd") == "at byte 2 of 3");
  CHECK(first_difference("abc", "ab") == "in size: 2 bytes, compiled 3");
}

TEST_CASE("gate: a cache that cannot be trusted is bad input, not a gate failure") {
  test::JobCache job("gate-corrupt");
  auto m = read_json_file(job.manifest());
  const std::string source = (job.cache / m["entries"][1]["files"]["source"].get<std::string>()).string();
  std::ofstream(source, std::ios::app) << "\n";
  GateOptions o;
  o.cache = job.cache;
  o.device = "none";
  CHECK_THROWS_WITH_AS(run_gate(o), doctest::Contains((source + ": SHA-256 mismatch").c_str()), InputError);
  o.cache = job.dir / "nowhere";
  CHECK_THROWS_WITH_AS(run_gate(o), doctest::Contains("manifest.json: cannot be read"), InputError);
}

TEST_CASE("gate: shards of a cache together check every entry exactly once, each saying which it checked") {
  test::JobCache job("gate-shards");
  GateOptions o;
  o.cache = job.cache;
  o.device = "none";
  const GateReport whole = run_gate(o);
  REQUIRE(whole.entries.size() == 2);
  CHECK(whole.checked() == "checking all 2 entries of the cache");
  for (std::size_t n : {2u, 3u}) {
    CAPTURE(n);
    std::map<std::size_t, int> seen;
    for (std::size_t i = 0; i < n; ++i) {
      o.shard = {i, n};
      std::vector<std::string> lines;
      const GateReport part = run_gate(o, [&](const std::string& line) { lines.push_back(line); });
      CHECK(part.cache_entries == 2);
      std::string indices;
      for (const auto& e : part.entries) {
        ++seen[e.index];
        CHECK(e.index % n == i);
        indices += (indices.empty() ? "" : ", ") + std::to_string(e.index);
      }
      const std::string said = "shard " + std::to_string(i) + "/" + std::to_string(n) + ": checking entries " +
                               (indices.empty() ? "none" : indices) + " of the cache's 2";
      CHECK(part.checked() == said);
      REQUIRE(!lines.empty());
      CHECK(lines.front() == said);  // told before anything is checked
      CHECK_MESSAGE(gate_markdown(part).find(said) != std::string::npos, gate_markdown(part));
    }
    REQUIRE(seen.size() == whole.entries.size());
    for (const auto& e : whole.entries) CHECK(seen[e.index] == 1);
  }
}

TEST_CASE("gate: says before it starts how long it expects to take, on device none its compiles alone") {
  test::JobCache job("gate-estimate");
  GateOptions o;
  o.cache = job.cache;
  std::vector<std::string> lines;
  auto listen = [&](const std::string& line) { lines.push_back(line); };
  o.device = "none";
  run_gate(o, listen);
  REQUIRE(lines.size() >= 2);
  CHECK_MESSAGE(lines[1].find("expected time on none") != std::string::npos, lines[1]);
  CHECK_MESSAGE(lines[1].find("static checks only; NVRTC ") != std::string::npos, lines[1]);
  CHECK_MESSAGE(lines[2].find("and no launches") != std::string::npos, lines[2]);
  lines.clear();
  o.device = "emu";
  const GateReport report = run_gate(o, listen);
  REQUIRE(lines.size() >= 3);
  CHECK_MESSAGE(lines[1].find("expected time on emu:") != std::string::npos, lines[1]);
  // Which entries are the reference depends on the emu times of the job that made the cache: the
  // reference runs alone (one kernel), another entry is validated after the reference is timed
  // for the hang limit (two).
  std::size_t kernels = 0;
  for (const auto& r : report.entries) kernels += r.validation == std::string("ran on emu: ") + kReferenceItself ? 1 : 2;
  CHECK_MESSAGE(lines[1].find(" s for 2 tasks, " + std::to_string(kernels) + " kernels") != std::string::npos, lines[1]);
  CHECK_MESSAGE(lines[2].find("launches per kernel") != std::string::npos, lines[2]);
}

TEST_CASE("gate: an entry whose evaluation would not fit in this machine's memory fails, saying so, and launches nothing") {
  test::JobCache job("gate-memory");
  auto m = read_json_file(job.manifest());
  REQUIRE(m["entries"][0]["buckets"].contains("tokens"));
  m["entries"][0]["buckets"]["tokens"][1] = 1099511627776LL;  // rows of 256 up to 2^40 tokens: 563 TB of input
  std::ofstream(job.manifest()) << m.dump(2);

  GateOptions o;
  o.cache = job.cache;
  o.device = "emu";
  std::vector<std::string> lines;
  const GateReport report = run_gate(o, [&](const std::string& line) { lines.push_back(line); });
  REQUIRE(report.entries.size() == 2);
  CHECK_FALSE(report.pass());
  CHECK(report.entries[1].pass());
  CHECK(report.entries[0].validation == "not validated");
  REQUIRE(report.entries[0].failures.size() == 1);
  CHECK_MESSAGE(report.entries[0].failures[0].rfind("cannot be validated on this machine: an evaluation at this shape needs about", 0) == 0,
                report.entries[0].failures[0]);
  CHECK_MESSAGE(report.entries[0].failures[0].find("TB of this machine's memory") != std::string::npos, report.entries[0].failures[0]);
  REQUIRE(lines.size() >= 2);
  // The entry that fits: one kernel if it is the reference, two if the reference is timed for it.
  const bool itself = report.entries[1].validation == std::string("ran on emu: ") + kReferenceItself;
  CHECK_MESSAGE(lines[1].find(std::string("for 1 tasks, ") + (itself ? "1" : "2") + " kernels") != std::string::npos, lines[1]);
}

TEST_CASE("gate: a task whose entry is its reference is checked as the job checked it: a baseline's stack is not limited") {
  // At these tiny shapes no template beats attention's reference on emu, so it is exported; it
  // keeps a double accumulator per head dim on its stack (kilobytes), over a candidate's limit.
  test::JobCache job("gate-reference", std::string(HONE_TEST_DATA_DIR) + "/shapes/attention_small.json");
  const auto m = read_json_file(job.manifest());
  int references = 0;
  for (const auto& e : m["entries"]) references += e.value("origin", "") == "reference";
  REQUIRE(references >= 1);
  GateOptions o;
  o.cache = job.cache;
  o.device = "emu";
  const GateReport report = run_gate(o);
  CHECK_MESSAGE(report.pass(), gate_markdown(report));
  // The reference itself is what every check compares with: it is run at the shape, not compared
  // with itself (on emu that was most of a gate's time).
  REQUIRE(report.entries.size() == m["entries"].size());
  std::size_t first_reference = m["entries"].size();
  for (std::size_t i = 0; i < report.entries.size(); ++i) {
    const bool reference = m["entries"][i].value("origin", "") == "reference";
    if (reference && first_reference == m["entries"].size()) first_reference = i;
    CHECK_MESSAGE(report.entries[i].validation ==
                      (reference ? std::string("ran on emu: ") + kReferenceItself : std::string("passed every stage on emu")),
                  report.entries[i].validation);
  }

  // An entry that says it is the reference but whose source is not the installed one is a kernel
  // like any other: checked against the reference, and here rejected.
  // (Its own file: the entries share the reference's.)
  auto tampered = m;
  auto& e = tampered["entries"][first_reference];
  std::string text = read_text_file(job.cache / e["files"]["source"].get<std::string>());
  const std::string rounding = "__float2bfloat16(";
  REQUIRE(text.find(rounding) != std::string::npos);
  text.replace(text.rfind(rounding), rounding.size(), "__float2bfloat16(1.0f + ");  // the last: the output
  e["files"]["source"] = "tampered_reference.cu";
  { std::ofstream(job.cache / "tampered_reference.cu", std::ios::binary | std::ios::trunc) << text; }
  e["sha256"]["source"] = sha256_hex(text);
  std::ofstream(job.manifest()) << tampered.dump(2);
  const GateReport after = run_gate(o);
  REQUIRE(after.entries.size() == report.entries.size());
  CHECK_MESSAGE(after.entries[first_reference].validation.rfind("rejected at the reference stage", 0) == 0,
                after.entries[first_reference].validation);
  for (std::size_t i = 0; i < after.entries.size(); ++i)
    if (i != first_reference) CHECK(after.entries[i].pass());
}
