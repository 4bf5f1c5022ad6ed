// The C ABI (libhone_kernel_cache.so, hone/kernel_cache.h) on a real job's cache: every call
// reports through status and error text, never by throwing.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hone/kernel_cache.h"
#include "core/expr.hpp"
#include "support/job_cache.hpp"

using hone::test::JobCache;

namespace {

struct Shape {
  std::vector<const char*> names;
  std::vector<int64_t> values;
};

Shape rmsnorm_shape(int64_t tokens) { return {{"tokens", "hidden"}, {tokens, 256}}; }

}  // namespace

TEST_CASE("c api: every bucket value finds its entry, a miss says why, arguments are checked") {
  JobCache job("capi");
  char error[1024];
  CHECK(hone_cache_format_version() == 1);
  hone_cache* cache = hone_cache_open(job.cache.c_str(), "sm_90", HONE_CACHE_ALLOW_OTHER_DEVICES, error, sizeof error);
  REQUIRE_MESSAGE(cache, error);
  CHECK(hone_cache_entry_count(cache) == 2);
  CHECK(hone_cache_verify(cache, error, sizeof error) == 0);

  const auto manifest = nlohmann::json::parse(std::ifstream(job.manifest()));
  for (std::size_t i = 0; i < manifest["entries"].size(); ++i) {
    const auto& e = manifest["entries"][i];
    for (int64_t t = e["buckets"]["tokens"][0]; t <= e["buckets"]["tokens"][1].get<int64_t>(); ++t) {
      CAPTURE(t);
      Shape s = rmsnorm_shape(t);
      int status = -1;
      hone_kernel* k = hone_cache_find(cache, "rmsnorm", s.names.data(), s.values.data(), 2, &status, error, sizeof error);
      REQUIRE_MESSAGE(k, error);
      CHECK(status == HONE_FOUND);
      const auto info = nlohmann::json::parse(hone_kernel_info(k));
      CHECK(info["index"] == i);
      CHECK(info["entry"] == e["entry"]);
      CHECK(info["image"] == "cubin");
      CHECK(info["args"].size() == 6);
      hone_launch_dims d;
      hone_kernel_dims(k, &d);
      const auto& grid = e["launch"]["grid"][0];  // the launch rule at this shape, as hone evaluates it
      CHECK(d.grid[0] == hone::Expr::parse(grid.is_string() ? grid.get<std::string>() : grid.dump()).eval({{"tokens", t}, {"hidden", 256}}));

      int out = 0;
      hone_arg args[6];
      for (int a = 0; a < 3; ++a) {
        args[a].kind = HONE_ARG_POINTER;
        args[a].value.pointer = &out;
      }
      args[3].kind = HONE_ARG_INT;
      args[3].value.integer = t;
      args[4].kind = HONE_ARG_INT;
      args[4].value.integer = 256;
      args[5].kind = HONE_ARG_FLOAT;
      args[5].value.real = 1e-5;
      CHECK_MESSAGE(hone_kernel_check_args(k, args, 6, error, sizeof error) == 0, error);
      args[3].value.integer = t + 10;
      CHECK(hone_kernel_check_args(k, args, 6, error, sizeof error) != 0);
      CHECK_MESSAGE(std::string(error).find("'tokens' (int) is " + std::to_string(t + 10)) != std::string::npos, error);
      CHECK(hone_kernel_check_args(k, args, 2, error, sizeof error) != 0);
      hone_kernel_free(k);
    }
  }

  Shape s = rmsnorm_shape(9);
  int status = -1;
  CHECK(hone_cache_find(cache, "rmsnorm", s.names.data(), s.values.data(), 2, &status, error, sizeof error) == nullptr);
  CHECK(status == HONE_MISS);
  CHECK_MESSAGE(std::string(error).find("tokens=9 is outside") != std::string::npos, error);
  // A short error buffer truncates, and stays a string.
  char tiny[8];
  CHECK(hone_cache_find(cache, "nope", s.names.data(), s.values.data(), 2, &status, tiny, sizeof tiny) == nullptr);
  CHECK(std::string(tiny) == "no entr");
  hone_cache_close(cache);

  // Without the opt-in, emu entries are not served to a GPU.
  cache = hone_cache_open(job.cache.c_str(), "sm_90", 0, error, sizeof error);
  REQUIRE(cache);
  CHECK(hone_cache_find(cache, "rmsnorm", s.names.data(), s.values.data(), 2, &status, error, sizeof error) == nullptr);
  s = rmsnorm_shape(1);
  CHECK(hone_cache_find(cache, "rmsnorm", s.names.data(), s.values.data(), 2, &status, error, sizeof error) == nullptr);
  CHECK(status == HONE_MISS);
  CHECK_MESSAGE(std::string(error).find("measured on emu:") != std::string::npos, error);
  hone_cache_close(cache);
}

TEST_CASE("c api: a corrupted cache is not opened, and the error names the file") {
  JobCache job("capi-corrupt");
  const auto manifest = nlohmann::json::parse(std::ifstream(job.manifest()));
  const std::string source = job.cache.string() + "/" + manifest["entries"][0]["files"]["source"].get<std::string>();
  std::ofstream(source, std::ios::app) << "// edited after export\n";
  char error[1024];
  CHECK(hone_cache_open(job.cache.c_str(), "sm_90", HONE_CACHE_ALLOW_OTHER_DEVICES, error, sizeof error) == nullptr);
  CHECK_MESSAGE(std::string(error).find(source + ": SHA-256 mismatch") != std::string::npos, error);
  // Skipping the check at open still never loads the edited file: verify reports it.
  hone_cache* cache = hone_cache_open(job.cache.c_str(), "sm_90", HONE_CACHE_ALLOW_OTHER_DEVICES | HONE_CACHE_NO_VERIFY, error, sizeof error);
  REQUIRE(cache);
  CHECK(hone_cache_verify(cache, error, sizeof error) != 0);
  CHECK_MESSAGE(std::string(error).find("SHA-256 mismatch") != std::string::npos, error);
  hone_cache_close(cache);
  CHECK(hone_cache_open(nullptr, "sm_90", 0, error, sizeof error) == nullptr);
}
