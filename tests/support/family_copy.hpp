#pragma once
// A copy of one of hone's op families (and templates/common beside it) in a temporary folder, for
// tests that edit its spec.json and load it again; removed when the test ends.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json_file.hpp"
#include "core/paths.hpp"

namespace hone::test {

struct FamilyCopy {
  std::filesystem::path dir;       // <tmp>/<family>, what load_op_spec takes
  nlohmann::json original_spec;    // the family's spec.json as shipped

  FamilyCopy(const std::string& family, const std::string& tag) {
    namespace fs = std::filesystem;
    dir = fs::temp_directory_path() / ("hone-" + tag + "-" + std::to_string(::getpid())) / family;
    fs::create_directories(dir);
    const fs::path source = templates_root() / family;
    for (const auto& f : fs::directory_iterator(source))
      fs::copy_file(f.path(), dir / f.path().filename(), fs::copy_options::overwrite_existing);
    fs::copy(templates_root() / "common", dir.parent_path() / "common", fs::copy_options::overwrite_existing | fs::copy_options::recursive);
    original_spec = read_json_file(source / "spec.json");
  }
  ~FamilyCopy() { std::filesystem::remove_all(dir.parent_path()); }
  FamilyCopy(const FamilyCopy&) = delete;
  FamilyCopy& operator=(const FamilyCopy&) = delete;

  void write_spec(const nlohmann::json& spec) const { std::ofstream(dir / "spec.json") << spec.dump(2); }
};

}  // namespace hone::test
