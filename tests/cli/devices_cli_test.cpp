// hone devices and --device cuda on a machine without a GPU: HONE_LIBCUDA points hone at a library
// that is not there, at the toolkit's stub libcuda, whose cuInit fails, or at the test double of
// the driver (tests/support/fake_libcuda.cpp), which shows one GPU.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "knowledge_db/knowledge_db.hpp"
#include "support/run_command.hpp"

namespace {

const std::string kHone = std::string(HONE_BINARY_DIR) + "/hone";

std::string stub_libcuda() {
  const char* home = std::getenv("CUDA_HOME");
  const std::filesystem::path root = home && *home ? home : "/usr/local/cuda";
  for (const char* dir : {"lib64/stubs", "lib/stubs"})
    if (std::filesystem::exists(root / dir / "libcuda.so")) return (root / dir / "libcuda.so").string();
  return "";
}

}  // namespace

TEST_CASE("hone devices: without a driver it says so in one line, lists emu and none, and auto picks emu") {
  auto r = hone::test::run_command("HONE_LIBCUDA=/nonexistent/libcuda.so.1 " + kHone + " devices");
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("cuda: none here: no CUDA driver (/nonexistent/libcuda.so.1 not found") == 0);
  CHECK(r.output.find("\nemu: ") != std::string::npos);
  CHECK(r.output.find("\nnone: compile and static checks only, for sm_") != std::string::npos);
  CHECK(r.output.find("--device auto picks emu\n") != std::string::npos);
}

TEST_CASE("hone devices --json: the same, as one object") {
  auto r = hone::test::run_command("HONE_LIBCUDA=/nonexistent/libcuda.so.1 " + kHone + " devices --json");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["cuda"]["available"] == false);
  CHECK(j["cuda"]["reason"].get<std::string>().find("libcuda.so.1 not found") != std::string::npos);
  CHECK(j["emu"]["timer"] == "cpu");
  CHECK_FALSE(j["none"]["archs"].empty());
  CHECK(j["auto"] == "emu");
}

TEST_CASE("--device cuda with a driver that does not initialise: one line naming cuInit and its error, exit 2") {
  const std::string stub = stub_libcuda();
  if (stub.empty()) {
    MESSAGE("skipped: no stub libcuda.so under $CUDA_HOME or /usr/local/cuda");
    return;
  }
  auto r = hone::test::run_command("cd " + std::string(HONE_BINARY_DIR) + " && HONE_LIBCUDA=" + stub + " " + kHone +
                                   " tune --model " + HONE_TEST_DATA_DIR + "/shapes/tiny.json --device cuda --db /dev/null/none.db");
  CHECK_MESSAGE(r.code == 2, r.output);
  CHECK(r.output.find("--device cuda: the CUDA driver (" + stub + ") did not initialise: cuInit: CUDA_ERROR_STUB_LIBRARY") !=
        std::string::npos);
  CHECK(r.output.find("use --device emu") != std::string::npos);
  auto devices = hone::test::run_command("HONE_LIBCUDA=" + stub + " " + kHone + " devices");
  CHECK(devices.code == 0);
  CHECK(devices.output.find("cuda: none here: the CUDA driver") == 0);
}

TEST_CASE("hone devices with a driver (the test double): the GPU's properties, its measured copy rate, and auto picks cuda") {
  // The double's GPU: sm_90, 132 SMs, 4 MiB of L2, copies at 2000 GB/s of its clock.
  auto r = hone::test::run_command(std::string("HONE_LIBCUDA=") + HONE_FAKE_LIBCUDA + " " + kHone + " devices --json");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  auto j = nlohmann::json::parse(r.output);
  REQUIRE(j["cuda"]["available"] == true);
  CHECK(j["cuda"]["driver"] == "13.0");
  REQUIRE(j["cuda"]["devices"].size() == 1);
  const auto& gpu = j["cuda"]["devices"][0];
  CHECK(gpu["name"] == "hone fake GPU (test driver)");
  CHECK(gpu["arch"] == "sm_90");
  CHECK(gpu["compile_arch"] == "sm_90");
  CHECK(gpu["sm_count"] == 132);
  CHECK(gpu["l2_bytes"].get<double>() == 4 << 20);
  CHECK(gpu["copy_bandwidth_gbs"].get<double>() == doctest::Approx(2000).epsilon(1e-3));
  // 2619 MHz, 5120 bits, two transfers per clock: the attributes' 3352 GB/s.
  CHECK(gpu["memory_bandwidth_gbs"].get<double>() == doctest::Approx(3352.3).epsilon(1e-3));
  CHECK(j["auto"] == "cuda");

  auto table = hone::test::run_command(std::string("HONE_LIBCUDA=") + HONE_FAKE_LIBCUDA + " " + kHone + " devices");
  CHECK(table.code == 0);
  CHECK(table.output.find("cuda: driver 13.0\n") == 0);
  CHECK(table.output.find("--device auto picks cuda\n") != std::string::npos);
}

TEST_CASE("--device auto with a driver (the test double): the job runs on the GPU for its architecture, and no kernel passes by "
          "writing nothing") {
  // The double runs no kernel code: every output keeps the poison it was filled with, and the
  // reference stage must see that, never a pass of two untouched buffers.
  const auto dir = std::filesystem::temp_directory_path() / ("hone-fake-gpu-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto r = hone::test::run_command("cd " + dir.string() + " && HONE_LIBCUDA=" + HONE_FAKE_LIBCUDA + " " + kHone +
                                   " tune --model " + HONE_TEST_DATA_DIR + "/shapes/tiny.json --budget 2 --db fake.db");
  CHECK_MESSAGE(r.code == 1, r.output);
  CHECK(r.output.find("2 tasks from ") == 0);
  CHECK(r.output.find(" on cuda:hone fake GPU (test driver) (sm_90), 2 candidates per task") != std::string::npos);
  CHECK(r.output.find("  reference 0.0050 ms (gpu)") != std::string::npos);
  CHECK(r.output.find("fail [reference] 512 of 512 elements of 'out' differ from the reference") != std::string::npos);
  CHECK(r.output.find("none: no candidate passed") != std::string::npos);
  CHECK(r.output.find(" pass ") == std::string::npos);
  // The copy rate the device measured, kept with the results for the report's floor.
  const auto limits = hone::KnowledgeDb(dir / "fake.db").device_limits("cuda:hone fake GPU (test driver)");
  REQUIRE(limits);
  CHECK(limits->at("copy_bandwidth_gbs").get<double>() == doctest::Approx(2000).epsilon(1e-3));
  CHECK(limits->at("peak_bandwidth_gbs").get<double>() == doctest::Approx(3352.3).epsilon(1e-3));
  CHECK(limits->at("arch") == "sm_90");
  std::filesystem::remove_all(dir);
}
