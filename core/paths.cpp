#include "core/paths.hpp"

#include <cstdlib>

namespace hone {

std::filesystem::path hone_home() {
  if (const char* h = std::getenv("HONE_HOME"); h && *h) return h;
  return HONE_SOURCE_DIR;
}

std::filesystem::path templates_root() { return hone_home() / "templates"; }

std::filesystem::path cache_root() {
  std::filesystem::path p;
  if (const char* c = std::getenv("HONE_CACHE_DIR"); c && *c) p = c;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) p = std::filesystem::path(x) / "hone";
  else if (const char* home = std::getenv("HOME"); home && *home) p = std::filesystem::path(home) / ".cache" / "hone";
  else p = std::filesystem::temp_directory_path() / "hone-cache";
  std::filesystem::create_directories(p);
  return p;
}

}  // namespace hone
