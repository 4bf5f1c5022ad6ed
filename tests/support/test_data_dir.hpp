#pragma once
// Where the tests' data files are: $HONE_TEST_DATA_DIR when set, else tests/data of the source tree
// the tests were built from. The override is for the GPU tests that scripts/bundle carries to a
// machine without the source tree.
#include <cstdlib>
#include <string>

namespace hone::test {

inline std::string test_data_dir() {
  const char* dir = std::getenv("HONE_TEST_DATA_DIR");
  return dir && *dir ? dir : HONE_TEST_DATA_DIR;
}

}  // namespace hone::test
