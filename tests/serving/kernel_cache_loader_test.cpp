// The header-only loader (serving/include/hone/kernel_cache.hpp) on a real job's cache: lookup
// for every bucket, device and architecture rules, file verification and argument packing.
// Everything but the launch itself runs without a GPU: the architecture is given explicitly.
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cstring>
#include <fstream>

#include "core/expr.hpp"
#include "core/json_file.hpp"
#include "core/sha256.hpp"
#include "hone/kernel_cache.hpp"
#include "support/job_cache.hpp"

using hone::test::JobCache;
namespace kc = hone::kernel_cache;

namespace {

hone::KernelCacheOptions on(const std::string& arch, bool allow_other_devices = false) {
  hone::KernelCacheOptions o;
  o.arch = arch;
  o.allow_other_devices = allow_other_devices;
  return o;
}

void write_json(const std::filesystem::path& p, const nlohmann::json& j) { std::ofstream(p) << j.dump(2); }

// The manifest as if the entries had been measured on a GPU of their architecture.
void mark_measured_on_gpu(const JobCache& job) {
  auto m = hone::read_json_file(job.manifest());
  for (auto& e : m["entries"]) e["device"] = {{"id", "cuda:NVIDIA H200"}, {"kind", "cuda"}, {"name", "NVIDIA H200"}};
  write_json(job.manifest(), m);
}

}  // namespace

TEST_CASE("loader: every value of every bucket of a real job's cache finds its entry, with verified files") {
  JobCache job("loader-buckets");
  hone::KernelCache cache(job.cache.string(), on("sm_90", true));
  const auto& entries = cache.manifest().entries;
  REQUIRE(entries.size() == 2);
  int found = 0;
  for (const auto& e : entries) {
    CHECK(e.op == "rmsnorm");
    CHECK(e.device.kind == "emu");
    const auto b = e.buckets.at("tokens");
    for (std::int64_t t = b.lo; t <= b.hi; ++t) {
      CAPTURE(t);
      auto k = cache.find("rmsnorm", {{"tokens", t}, {"hidden", 256}});
      REQUIRE_MESSAGE(k, k.miss_reason());
      CHECK(k.entry().index == e.index);
      CHECK(k.entry().entry == e.entry);
      CHECK(k.image_kind() == "cubin");
      CHECK(k.image_path() == job.cache.string() + "/" + e.files.at("cubin"));
      CHECK(hone::sha256_hex(hone::read_text_file(k.image_path())) == e.sha256.at("cubin"));
      // The launch rule evaluated at the runtime shape, as hone evaluates it (a template's grid,
      // or the reference's where no template beat it).
      CHECK(k.dims().grid[0] == hone::Expr::parse(e.grid[0]).eval({{"tokens", t}, {"hidden", 256}}));
      CHECK(k.dims().block[0] > 0);
      ++found;
    }
  }
  CHECK(found == 4);
  // Outside every bucket, or another static shape: a miss that says why.
  auto k = cache.find("rmsnorm", {{"tokens", 5}, {"hidden", 256}});
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("tokens=5 is outside 3..4") != std::string::npos, k.miss_reason());
  k = cache.find("rmsnorm", {{"tokens", 2}, {"hidden", 4096}});
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("entry is for hidden=256") != std::string::npos, k.miss_reason());
  k = cache.find("rmsnorm", {{"tokens", 2}});
  CHECK_MESSAGE(k.miss_reason().find("the shape lacks 'hidden'") != std::string::npos, k.miss_reason());
  k = cache.find("gemv", {{"M", 1}});
  CHECK_MESSAGE(k.miss_reason().find("no entry for op 'gemv'") != std::string::npos, k.miss_reason());
  CHECK_THROWS_AS(k.entry(), hone::KernelCacheError);
}

TEST_CASE("loader: entries measured on emu are refused on a GPU unless the caller opts in") {
  JobCache job("loader-emu");
  hone::KernelCache cache(job.cache.string(), on("sm_90"));
  auto k = cache.find("rmsnorm", {{"tokens", 1}, {"hidden", 256}});
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("measured on emu:") != std::string::npos, k.miss_reason());
  CHECK_MESSAGE(k.miss_reason().find("opt in") != std::string::npos, k.miss_reason());
  CHECK(hone::KernelCache(job.cache.string(), on("sm_90", true)).find("rmsnorm", {{"tokens", 1}, {"hidden", 256}}));
}

TEST_CASE("loader: an entry whose fastest kernel is a vendor library carries no files and is a miss that says to call it") {
  JobCache job("loader-vendor");
  mark_measured_on_gpu(job);
  auto m = hone::read_json_file(job.manifest());
  auto& e = m["entries"][0];
  e["origin"] = "vendor:cublas";
  e["files"] = nlohmann::json::object();
  e["sha256"] = nlohmann::json::object();
  write_json(job.manifest(), m);
  hone::KernelCache cache(job.cache.string(), on("sm_90"));
  const auto& b = m["entries"][0]["buckets"]["tokens"];
  auto k = cache.find("rmsnorm", {{"tokens", b[0].get<std::int64_t>()}, {"hidden", 256}});
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("is the vendor library cublas (no hone kernel beat it): keep calling the library") !=
                    std::string::npos,
                k.miss_reason());
  // The other entry is served as before; a vendor entry that names files is refused.
  const auto& other = m["entries"][1]["buckets"]["tokens"];
  CHECK(cache.find("rmsnorm", {{"tokens", other[1].get<std::int64_t>()}, {"hidden", 256}}));
  e["files"] = {{"source", "kernels/x.cu"}};
  e["sha256"] = {{"source", std::string(64, 'a')}};
  write_json(job.manifest(), m);
  CHECK_THROWS_WITH(hone::KernelCache(job.cache.string(), on("sm_90")), doctest::Contains("names files, but the entry is the vendor library 'cublas'"));
}

TEST_CASE("loader: CUBIN only for its own architecture, PTX JIT for a newer one, a miss with the reason for an older one") {
  JobCache job("loader-arch");
  mark_measured_on_gpu(job);
  const kc::Shape shape = {{"tokens", 3}, {"hidden", 256}};
  // Measured on a GPU of this architecture: served without opting in, from the CUBIN.
  auto k = hone::KernelCache(job.cache.string(), on("sm_90")).find("rmsnorm", shape);
  REQUIRE_MESSAGE(k, k.miss_reason());
  CHECK(k.image_kind() == "cubin");
  // Another architecture is another device: refused by default...
  k = hone::KernelCache(job.cache.string(), on("sm_100")).find("rmsnorm", shape);
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("for sm_90, not sm_100") != std::string::npos, k.miss_reason());
  // ...and with the opt-in the sm_90 PTX is JIT-compiled on the newer GPU; the CUBIN never is.
  k = hone::KernelCache(job.cache.string(), on("sm_100", true)).find("rmsnorm", shape);
  REQUIRE_MESSAGE(k, k.miss_reason());
  CHECK(k.image_kind() == "ptx");
  CHECK(k.image_path().size() > 4);
  CHECK(k.image_path().substr(k.image_path().size() - 4) == ".ptx");
  // An older GPU can run neither.
  k = hone::KernelCache(job.cache.string(), on("sm_80", true)).find("rmsnorm", shape);
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("cannot run on sm_80") != std::string::npos, k.miss_reason());
}

TEST_CASE("loader: a corrupted or foreign cache is refused with the file and the reason") {
  JobCache job("loader-corrupt");
  const auto m = hone::read_json_file(job.manifest());
  const std::string cubin = job.cache.string() + "/" + m["entries"][0]["files"]["cubin"].get<std::string>();
  auto refused = [&](const std::string& expected) {
    try {
      hone::KernelCache cache(job.cache.string(), on("sm_90", true));
      FAIL("opened: expected a refusal saying " << expected);
    } catch (const hone::KernelCacheError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(expected) != std::string::npos, e.what());
    }
  };

  SUBCASE("a flipped byte in a CUBIN") {
    std::string bytes = hone::read_text_file(cubin);
    bytes[bytes.size() / 2] ^= 0x5a;
    std::ofstream(cubin, std::ios::binary) << bytes;
    refused(cubin + ": SHA-256 mismatch");
    // Without the check at open, the file is still checked before it is loaded.
    hone::KernelCacheOptions o = on("sm_90", true);
    o.verify_files = false;
    hone::KernelCache lazy(job.cache.string(), o);
    CHECK_THROWS_WITH_AS(lazy.find("rmsnorm", {{"tokens", 1}, {"hidden", 256}}), doctest::Contains("SHA-256 mismatch"),
                         hone::KernelCacheError);
  }
  SUBCASE("a missing file") {
    std::filesystem::remove(cubin);
    refused(cubin + ": cannot be read");
  }
  SUBCASE("a manifest that is not JSON") {
    std::ofstream(job.manifest()) << "{\"format\": \"hone-kernel-cache\", ";
    refused("manifest.json: is not valid JSON");
  }
  SUBCASE("a manifest from a newer format") {
    auto n = m;
    n["format_version"] = kc::kFormatVersion + 1;
    write_json(job.manifest(), n);
    refused("is newer than this loader reads");
  }
  SUBCASE("another program's JSON") {
    write_json(job.manifest(), {{"entries", nlohmann::json::array()}});
    refused("is not a hone kernel cache manifest");
  }
  SUBCASE("an entry without its launch rule") {
    auto n = m;
    n["entries"][1].erase("launch");
    write_json(job.manifest(), n);
    refused("manifest.json: entries[1]: lacks 'launch'");
  }
  SUBCASE("a file path that leaves the cache") {
    auto n = m;
    n["entries"][0]["files"]["ptx"] = "../../etc/passwd";
    write_json(job.manifest(), n);
    refused("entries[0].files.ptx: '../../etc/passwd' leaves the cache directory");
  }
  SUBCASE("a malformed SHA-256") {
    auto n = m;
    n["entries"][0]["sha256"]["source"] = "abc";
    write_json(job.manifest(), n);
    refused("entries[0].sha256.source: is not 64 lowercase hex digits");
  }
  SUBCASE("no cache at all") {
    std::filesystem::remove_all(job.cache);
    refused("manifest.json: cannot be read");
  }
}

TEST_CASE("loader: launch arguments are packed and checked as the entry's argument layout says") {
  JobCache job("loader-args");
  hone::KernelCache cache(job.cache.string(), on("sm_90", true));
  auto k = cache.find("rmsnorm", {{"tokens", 2}, {"hidden", 256}});
  REQUIRE_MESSAGE(k, k.miss_reason());
  int out = 0, x = 0, w = 0;  // stand-ins for device buffers: packing only copies the addresses
  const auto packed = k.pack({kc::arg_value(&out), kc::arg_value(static_cast<const int*>(&x)), kc::arg_value(&w),
                              kc::arg_value(2), kc::arg_value(256), kc::arg_value(1e-5f)});
  REQUIRE(packed.params.size() == 6);
  CHECK(packed.sizes == std::vector<std::size_t>{8, 8, 8, 4, 4, 4});
  CHECK(*static_cast<void* const*>(packed.params[0]) == &out);
  CHECK(*static_cast<void* const*>(packed.params[2]) == &w);
  CHECK(*static_cast<const std::int32_t*>(packed.params[3]) == 2);
  CHECK(*static_cast<const std::int32_t*>(packed.params[4]) == 256);
  CHECK(*static_cast<const float*>(packed.params[5]) == 1e-5f);
  // A copy points into its own storage.
  const kc::PackedArgs copy = packed;
  CHECK(copy.params[3] != packed.params[3]);
  CHECK(*static_cast<const std::int32_t*>(copy.params[3]) == 2);

  auto refused = [&](const std::vector<kc::ArgValue>& args, const std::string& expected) {
    CHECK_THROWS_WITH_AS(k.pack(args), doctest::Contains(expected.c_str()), hone::KernelCacheError);
  };
  refused({kc::arg_value(&out)}, "takes 6 arguments, got 1");
  refused({kc::arg_value(1), kc::arg_value(&x), kc::arg_value(&w), kc::arg_value(2), kc::arg_value(256), kc::arg_value(1e-5)},
          "argument 0 'out' (__nv_bfloat16*) must be a device pointer");
  refused({kc::arg_value(&out), kc::arg_value(&x), kc::arg_value(&w), kc::arg_value(2.0), kc::arg_value(256), kc::arg_value(1e-5)},
          "'tokens' (int) must be an integer");
  // A kernel specialised for hidden=256 and found for tokens=2 is not launched with other values.
  refused({kc::arg_value(&out), kc::arg_value(&x), kc::arg_value(&w), kc::arg_value(3), kc::arg_value(256), kc::arg_value(1e-5)},
          "'tokens' (int) is 3, but the kernel was found for tokens = 2");
  refused({kc::arg_value(&out), kc::arg_value(&x), kc::arg_value(&w), kc::arg_value(2), kc::arg_value(4096), kc::arg_value(1e-5)},
          "is 4096, but the kernel was found for hidden = 256");
  // An integer where the kernel takes a float is converted.
  CHECK(*static_cast<const float*>(
            k.pack({kc::arg_value(&out), kc::arg_value(&x), kc::arg_value(&w), kc::arg_value(2), kc::arg_value(256), kc::arg_value(1)})
                .params[5]) == 1.0f);
}

TEST_CASE("loader: without a CUDA driver, finding works and launching says there is none") {
  if (void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    MESSAGE("a CUDA driver is installed: scripts/gpu-check launches for real");
    return;
  }
  JobCache job("loader-nodriver");
  auto k = hone::KernelCache(job.cache.string(), on("sm_90", true)).find("rmsnorm", {{"tokens", 2}, {"hidden", 256}});
  REQUIRE(k);
  int buf = 0;
  CHECK_THROWS_WITH_AS(k.launch(nullptr, &buf, &buf, &buf, 2, 256, 1e-5f), doctest::Contains("no CUDA driver"), hone::KernelCacheError);
  // Without an architecture given, the loader asks the driver, and says it cannot.
  hone::KernelCache ask(job.cache.string(), hone::KernelCacheOptions{});
  CHECK_THROWS_WITH_AS(ask.find("rmsnorm", {{"tokens", 2}, {"hidden", 256}}), doctest::Contains("libcuda.so.1"), hone::KernelCacheError);
}

TEST_CASE("loader: launch expressions evaluate as hone's own expressions do") {
  const hone::Bindings b = {{"tokens", 7}, {"hidden", 4096}, {"zero", 0}};
  for (const char* text : {"tokens", "ceil_div(tokens * hidden, 256)", "min(tokens, 4, hidden)", "max(1, tokens / 2)",
                           "tokens > 4 ? 128 : 64", "hidden % 96 + -tokens", "!zero && tokens <= 7", "(tokens + 1) * 2 - 3 / 2",
                           "zero != 0 ? hidden / zero : 1", "zero == 0 || hidden / zero", "1 + 2 * 3 == 7", "tokens >= 8 ? 1 : tokens < 8"}) {
    CAPTURE(text);
    CHECK(kc::eval_expr(text, b) == hone::Expr::parse(text).eval(b));
  }
  CHECK_THROWS_WITH_AS(kc::eval_expr("hidden / zero", b), doctest::Contains("division by zero"), hone::KernelCacheError);
  CHECK_THROWS_WITH_AS(kc::eval_expr("tokens * heads", b), doctest::Contains("unknown symbol 'heads'"), hone::KernelCacheError);
  CHECK_THROWS_WITH_AS(kc::eval_expr("tokens +", b), doctest::Contains("unexpected end"), hone::KernelCacheError);
  CHECK_THROWS_WITH_AS(kc::eval_expr("sqrt(tokens)", b), doctest::Contains("unknown function 'sqrt'"), hone::KernelCacheError);
}
