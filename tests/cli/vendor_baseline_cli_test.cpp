// A gemv job on the cuda device through the driver and cuBLAS doubles (tests/support): cuBLAS is
// timed beside the reference and in turns with the winner; where it is the fastest it is the
// entry, exported with no files; where the library does not load, the job goes on with the
// reference and says why.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

const std::string kHone = std::string(HONE_BINARY_DIR) + "/hone";

// The gemv job on the doubles, cuBLAS's work taking `cublas_us` microseconds against 5 for a kernel.
hone::test::CommandResult tune(const hone::test::TempDir& s, const std::string& libcublas, const std::string& cublas_us) {
  return hone::test::run_command("cd " + s.path.string() + " && HONE_LIBCUDA=" + HONE_FAKE_LIBCUDA +
                                 " HONE_LIBCUBLAS=" + libcublas + " HONE_FAKE_CUDA_HOST_US=" + cublas_us + " " + kHone +
                                 " tune --model " + HONE_TEST_DATA_DIR + "/shapes/tiny_linear.json --device cuda --budget 2 --db " +
                                 (s / "t.db").string() + " 2>&1");
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("tune (driver and cuBLAS doubles): cuBLAS faster than every candidate is gemv's entry, exported with no files") {
  const hone::test::TempDir s;
  const auto r = tune(s, HONE_FAKE_LIBCUBLAS, "2");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(has(r.output, "  vendor:cublas 0.0020 ms (gpu)"), r.output);
  CHECK_MESSAGE(has(r.output, "against the vendor:cublas 0.0020 ms, timed in turns: 0.40x"), r.output);
  CHECK_MESSAGE(has(r.output, "the vendor:cublas is the entry"), r.output);

  const auto e = hone::test::run_command(kHone + " export --db " + (s / "t.db").string() + " --out " +
                                         (s / "cache").string() + " 2>&1");
  REQUIRE_MESSAGE(e.code == 0, e.output);
  std::ifstream in(s / "cache" / "manifest.json");
  const auto manifest = nlohmann::json::parse(in);
  REQUIRE(manifest["entries"].size() == 1);
  const auto& entry = manifest["entries"][0];
  CHECK(entry["origin"] == "vendor:cublas");
  CHECK(entry["entry"] == "vendor:cublas:gemv");
  CHECK(entry["files"].empty());
  CHECK(entry["timed_in_turns"] == true);
  CHECK(entry["time_ms"].get<double>() == doctest::Approx(0.002));

  // scripts/gpu-check's table reads cuBLAS's and the reference's times from the job's database.
  const auto devices = hone::test::run_command(std::string("HONE_LIBCUDA=") + HONE_FAKE_LIBCUDA + " " + kHone +
                                               " devices --json > " + (s / "devices.json").string());
  REQUIRE(devices.code == 0);
  const std::string src = HONE_SOURCE_DIR;
  const auto table = hone::test::run_command("python3 " + src + "/scripts/gpu_check_table.py " + (s / "cache").string() + " " +
                                             (s / "devices.json").string() + " " + src + "/templates --db " +
                                             (s / "t.db").string() + " 2>&1");
  REQUIRE_MESSAGE(table.code == 0, table.output);
  CHECK_MESSAGE(has(table.output, "cuBLAS ms  reference ms  vs cuBLAS"), table.output);
  CHECK_MESSAGE(has(table.output, "vendor:cublas:gemv (the baseline)  0.0020   0.0020       0.0020     0.0050        1.00x"),
                table.output);
}

TEST_CASE("tune (driver and cuBLAS doubles): a candidate faster than cuBLAS and the reference keeps the entry") {
  const hone::test::TempDir s;
  const auto r = tune(s, HONE_FAKE_LIBCUBLAS, "8");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(has(r.output, "  vendor:cublas 0.0080 ms (gpu)"), r.output);
  CHECK_MESSAGE(has(r.output, "against the vendor:cublas 0.0080 ms, timed in turns: 1.60x"), r.output);
  // The reference ties the candidates (every kernel takes 5 us here), so it keeps the entry.
  CHECK_MESSAGE(has(r.output, "the reference is the entry"), r.output);
}

TEST_CASE("tune (driver double): without a usable cuBLAS the gemv job goes on with the reference and says why") {
  const hone::test::TempDir s;
  const auto r = tune(s, "/nonexistent/libcublas.so.12", "2");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(has(r.output, "vendor baseline left out: "), r.output);
  CHECK_MESSAGE(has(r.output, "/nonexistent/libcublas.so.12"), r.output);
  CHECK_FALSE(has(r.output, "  vendor:cublas "));
}
