#pragma once
// A HONE_HOME for tests: links to hone's own templates, runtime and shapes, and beside hone's op
// families the test families of tests/data/families, so that `hone tune` and `hone export` treat
// a test family as an installed one.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace hone::test {

struct FamilyHome {
  std::filesystem::path dir;

  explicit FamilyHome(const std::string& name) {
    namespace fs = std::filesystem;
    static std::atomic<int> n{0};
    dir = fs::temp_directory_path() / ("hone-home-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir / "templates");
    const fs::path src = HONE_SOURCE_DIR;
    fs::create_directory_symlink(src / "runtime", dir / "runtime");
    fs::create_directory_symlink(src / "shapes", dir / "shapes");
    for (const auto& e : fs::directory_iterator(src / "templates"))
      if (e.is_directory()) fs::create_directory_symlink(e.path(), dir / "templates" / e.path().filename());
    for (const auto& e : fs::directory_iterator(fs::path(HONE_TEST_DATA_DIR) / "families"))
      fs::create_directory_symlink(e.path(), dir / "templates" / e.path().filename());
  }
  ~FamilyHome() { std::filesystem::remove_all(dir); }
  FamilyHome(const FamilyHome&) = delete;
  FamilyHome& operator=(const FamilyHome&) = delete;

  std::string env() const { return "HONE_HOME=" + dir.string(); }
};

}  // namespace hone::test
