#include "serving/staged_directory.hpp"

#include <unistd.h>

#include <fstream>

#include "core/input_error.hpp"
#include "core/json_file.hpp"

namespace hone {

StagedDirectory::StagedDirectory(const std::filesystem::path& target,
                                 const std::function<bool(const std::filesystem::path&)>& replaceable,
                                 const std::string& refusal)
    : target_(std::filesystem::absolute(target)) {
  if (std::filesystem::exists(target_) && !(std::filesystem::is_directory(target_) && std::filesystem::is_empty(target_)) &&
      !(std::filesystem::is_directory(target_) && replaceable(target_)))
    throw input_error(target.string(), refusal);
  std::filesystem::create_directories(target_.parent_path());
  staging_ = target_.parent_path() / (target_.filename().string() + ".partial-" + std::to_string(::getpid()));
  std::filesystem::remove_all(staging_);
  std::filesystem::create_directories(staging_);
}

StagedDirectory::~StagedDirectory() {
  if (!committed_) {
    std::error_code ec;
    std::filesystem::remove_all(staging_, ec);
  }
}

void StagedDirectory::write(const std::filesystem::path& relative, const std::string& content) {
  const std::filesystem::path p = staging_ / relative;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
  out.flush();
  if (!out) throw input_error(p.string(), "cannot be written");
}

bool StagedDirectory::contains(const std::filesystem::path& relative) const {
  return std::filesystem::exists(staging_ / relative);
}

void StagedDirectory::commit() {
  // The old directory moves aside first, so the target name never points at half of either.
  std::filesystem::path old;
  if (std::filesystem::exists(target_)) {
    old = target_.parent_path() / (target_.filename().string() + ".old-" + std::to_string(::getpid()));
    std::filesystem::remove_all(old);
    std::filesystem::rename(target_, old);
  }
  std::filesystem::rename(staging_, target_);
  committed_ = true;
  if (!old.empty()) std::filesystem::remove_all(old);
}

bool is_export_of(const std::filesystem::path& dir, const std::string& format) {
  try {
    return read_text_file(dir / kExportMarker) == format + "\n";
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace hone
