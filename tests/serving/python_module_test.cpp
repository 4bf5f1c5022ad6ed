// The Python module (serving/python/hone_kernel_cache.py, ctypes over the C ABI) on a real
// job's cache, run by the python3 interpreter: tests/serving/python/test_kernel_cache.py.
#include <doctest/doctest.h>

#include "support/job_cache.hpp"

TEST_CASE("python module: finds every bucket's entry, verifies files, refuses wrong-architecture and corrupted caches") {
  hone::test::JobCache job("python");
  const auto r = job.run_python("test_kernel_cache.py");
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(r.output.find("OK") != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find("Ran 6 tests") != std::string::npos, r.output);
}
