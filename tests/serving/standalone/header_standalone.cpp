// Built with only serving/include on the include path, as C++17: the loader header stands alone
// (no hone header, no hone library). Also runs a few calls that need no cache and no GPU.
#include "hone/kernel_cache.hpp"

#include <cstdio>
#include <string>

int main() {
  int failures = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "FAILED: %s\n", what);
      ++failures;
    }
  };
  expect(hone::kernel_cache::eval_expr("ceil_div(tokens, 4) * 32", {{"tokens", 7}}) == 64, "eval_expr");
  expect(hone::kernel_cache::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256_hex");
  try {
    hone::KernelCache cache("/nonexistent/hone-cache");
    expect(false, "opening a missing cache throws");
  } catch (const hone::KernelCacheError& e) {
    expect(std::string(e.what()).find("/nonexistent/hone-cache/manifest.json: cannot be read") != std::string::npos, e.what());
  }
  if (failures == 0) std::printf("ok\n");
  return failures == 0 ? 0 : 1;
}
