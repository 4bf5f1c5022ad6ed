#pragma once
// The op families present under a templates root, as the importer needs them: each family's shape
// symbols, which of them are dynamic, and its float scalars. An op whose family is here is an op
// of the shapes file; one whose family is not is listed as not tuned.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hone {

struct FamilySymbols {
  std::vector<std::string> symbols;
  std::set<std::string> dynamic;
  std::set<std::string> float_scalars;
};

using FamilyCatalog = std::map<std::string, FamilySymbols>;

/// Every family under `templates_root` (its spec.json read); throws InputError for a broken spec.
FamilyCatalog load_family_catalog(const std::filesystem::path& templates_root);

}  // namespace hone
