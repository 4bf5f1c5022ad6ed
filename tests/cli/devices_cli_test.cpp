// hone devices and --device cuda on a machine without a usable driver: HONE_LIBCUDA points hone at
// a library that is not there, or at the toolkit's stub libcuda, whose cuInit fails.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

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
