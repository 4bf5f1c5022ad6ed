#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

#include "core/json_file.hpp"

// ctest splits a test's name at ';' and then runs no case at all while reporting success: a test
// so named is silently never run. Keep every test name free of it.
TEST_CASE("tests: no test case name contains a semicolon") {
  const std::regex test_case(R"re(TEST_CASE(?:_FIXTURE)?\s*\((?:[^,"]*,\s*)?"([^"]*)")re");
  int names = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(HONE_SOURCE_DIR) + "/tests")) {
    if (e.path().extension() != ".cpp") continue;
    const std::string text = hone::read_text_file(e.path());
    for (std::sregex_iterator it(text.begin(), text.end(), test_case), end; it != end; ++it) {
      ++names;
      CHECK_MESSAGE((*it)[1].str().find(';') == std::string::npos, e.path().filename().string() << ": " << (*it)[1].str());
    }
  }
  CHECK(names > 100);
}
