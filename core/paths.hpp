#pragma once
// Where hone finds its data and keeps its caches.
#include <filesystem>

namespace hone {

/// The folder holding templates/, shapes/ and runtime/emu/include: $HONE_HOME when set, else the
/// source tree hone was built from.
std::filesystem::path hone_home();
std::filesystem::path templates_root();
/// Per-user cache (compiled emulation objects): $HONE_CACHE_DIR, else $XDG_CACHE_HOME/hone,
/// else ~/.cache/hone; created on first use.
std::filesystem::path cache_root();

}  // namespace hone
