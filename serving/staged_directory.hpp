#pragma once
// Writing an output directory so that readers see the old one or the new one, never half of one:
// files go to a staging folder beside the target, which replaces it by rename on commit. An
// exception before commit leaves the target as it was and removes the staging folder.
#include <filesystem>
#include <functional>
#include <string>

namespace hone {

class StagedDirectory {
 public:
  /// Refuses (InputError naming the target) to stage over an existing, non-empty target that
  /// `replaceable` does not accept, e.g. one that is not an earlier export of the same kind.
  StagedDirectory(const std::filesystem::path& target, const std::function<bool(const std::filesystem::path&)>& replaceable,
                  const std::string& refusal);
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  /// Writes `relative` (creating its folders) in the staging folder.
  void write(const std::filesystem::path& relative, const std::string& content);
  bool contains(const std::filesystem::path& relative) const;
  /// Swaps the staging folder in for the target.
  void commit();

 private:
  std::filesystem::path target_, staging_;
  bool committed_ = false;
};

/// A marker file an export leaves in its directory, naming its format, so that exporting again
/// may replace the directory and nothing else is ever replaced.
inline constexpr const char* kExportMarker = ".hone-export";

/// Whether `dir` holds the marker of an export in `format`.
bool is_export_of(const std::filesystem::path& dir, const std::string& format);

}  // namespace hone
