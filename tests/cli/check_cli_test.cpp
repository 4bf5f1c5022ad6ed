#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

extern char** environ;

namespace {

const std::string kCheckDir = std::string(HONE_TEST_DATA_DIR) + "/validator/check/";

hone::test::CommandResult check(const std::string& file, const std::string& extra = "") {
  return hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone check --op rmsnorm --source " + kCheckDir + file +
                                 " --entry rmsnorm_warp --grid \"ceil_div(tokens,4),1,1\" --block \"128,1,1\""
                                 " --shape tokens=7,hidden=4096 " + extra);
}

}  // namespace

TEST_CASE("hone check: a correct hand-written rmsnorm (one warp per row, shuffles) is accepted on emu") {
  auto r = check("rmsnorm_warp.cu", "--device emu");
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("accepted") != std::string::npos);
}

TEST_CASE("hone check: the same kernel with its __syncthreads removed is rejected on emu") {
  auto r = check("rmsnorm_warp_nosync.cu", "--device emu --json");
  REQUIRE_MESSAGE(r.code == 1, r.output);
  auto v = nlohmann::json::parse(r.output);
  CHECK(v["pass"] == false);
  CHECK(v["stage"] != "static");
  CHECK(!v["reason"].get<std::string>().empty());
}

TEST_CASE("hone check: --device none runs the static checks only, and bad input is exit 2") {
  auto r = check("rmsnorm_warp.cu", "--device none --json");
  REQUIRE_MESSAGE(r.code == 0, r.output);
  auto v = nlohmann::json::parse(r.output);
  CHECK(v["stage"] == "static");
  CHECK(v["detail"]["resources"]["shared_bytes"] == 16384);
  CHECK(check("missing.cu", "--device none").code == 2);
  auto bad = hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone check --op rmsnorm --source " + kCheckDir +
                                     "rmsnorm_warp.cu --entry rmsnorm_warp --grid \"ceil_div(tokens,ROWS)\" --block 128"
                                     " --shape tokens=7,hidden=4096 --device none");
  CHECK(bad.code == 2);
  CHECK_MESSAGE(bad.output.find("uses 'ROWS', which is not a shape symbol of rmsnorm") != std::string::npos, bad.output);
}

namespace {

const std::string kAttacks = std::string(HONE_TEST_DATA_DIR) + "/validator/broken/rmsnorm_timing_attacks.cu";

std::string spinning_check(const std::string& shape, const std::string& extra) {
  return std::string(HONE_BINARY_DIR) + "/hone check --op rmsnorm --source " + kAttacks +
         " --entry rmsnorm_spins_at_seven --grid \"ceil_div(tokens,32)\" --block 32 --shape " + shape + " --device emu " + extra;
}

// The processes that name `parent` as the hone that started them: its workers and what they run.
std::vector<pid_t> started_by(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& p : std::filesystem::directory_iterator("/proc")) {
    const std::string name = p.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(p.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(std::string("--parent") + '\0' + std::to_string(parent) + '\0') != std::string::npos)
      out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

}  // namespace

TEST_CASE("hone check: a kernel that spins forever at one size of its bucket is rejected in seconds, not minutes") {
  const auto start = std::chrono::steady_clock::now();
  auto r = hone::test::run_command(spinning_check("tokens=5,hidden=256", "--json"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE_MESSAGE(r.code == 1, r.output);
  const auto v = nlohmann::json::parse(r.output);
  CHECK(v["stage"] == "hidden");
  const std::string reason = v["reason"];
  CHECK_MESSAGE(reason.find("hang: the candidate at tokens=7,hidden=256 in the hidden stage ran for 5 s without finishing") == 0, reason);
  CHECK_MESSAGE(reason.find("the limit is 100 times the reference's") != std::string::npos, reason);
  CHECK(v["detail"]["launch_limit"]["seconds"] == 5);
  CHECK(seconds < 30);
  MESSAGE("hone check rejected the hanging kernel in " << seconds << " s");
}

TEST_CASE("hone check: --timeout sets the limit instead") {
  auto r = hone::test::run_command(spinning_check("tokens=5,hidden=256", "--timeout 2"));
  REQUIRE_MESSAGE(r.code == 1, r.output);
  CHECK_MESSAGE(r.output.find("rejected at the hidden stage: hang: ") == 0, r.output);
  CHECK_MESSAGE(r.output.find("ran for 2 s without finishing (the limit is --timeout 2 s)") != std::string::npos, r.output);
  CHECK(hone::test::run_command(spinning_check("tokens=5,hidden=256", "--timeout -1")).code == 2);
}

TEST_CASE("hone check killed with SIGKILL while its kernel spins leaves no worker behind") {
  // Spins at the visible size, so in the reference stage; no limit cuts it off in the test's time.
  const std::string command = spinning_check("tokens=7,hidden=256", "--timeout 600");
  pid_t hone = -1;
  std::vector<std::string> args = {"/bin/sh", "-c", "exec " + command + " > /dev/null 2>&1"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  REQUIRE(posix_spawn(&hone, "/bin/sh", nullptr, nullptr, argv.data(), environ) == 0);
  // Until the kernel runs: the worker and the evaluation's child, both naming hone as their parent.
  std::vector<pid_t> workers;
  for (int i = 0; i < 600 && workers.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    workers = started_by(hone);
  }
  REQUIRE_MESSAGE(workers.size() >= 2, "the worker never started its evaluation");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the evaluation has reached the spinning launch by now
  REQUIRE(::kill(hone, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(hone, &status, 0) == hone);
  for (int i = 0; i < 50 && !started_by(hone).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto left = started_by(hone);
  CHECK_MESSAGE(left.empty(), left.size() << " processes hone started are still running, the first " << left.front());
  for (pid_t p : left) ::kill(p, SIGKILL);  // not leave them spinning if the check failed
}

TEST_CASE("hone check: a shape whose evaluation would not fit in this machine's memory is refused before anything is drawn") {
  auto r = hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone check --op rmsnorm --source " + kCheckDir +
                                   "rmsnorm_warp.cu --entry rmsnorm_warp --grid \"ceil_div(tokens,4),1,1\" --block \"128,1,1\""
                                   " --shape tokens=1099511627776,hidden=4096 --device emu");
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find("--shape tokens=1099511627776,hidden=4096: cannot be checked on this machine: an evaluation at this "
                              "shape needs about") != std::string::npos,
                r.output);
}
