#include "tuner/model_import/family_catalog.hpp"

#include "core/op_spec.hpp"

namespace hone {

FamilyCatalog load_family_catalog(const std::filesystem::path& templates_root) {
  FamilyCatalog out;
  for (const auto& name : list_op_families(templates_root)) {
    OpSpec spec = load_op(templates_root, name);
    FamilySymbols f;
    f.symbols = spec.symbols;
    f.dynamic = spec.dynamic;
    for (const auto& a : spec.args)
      if (!a.pointer && dtype_is_float(a.dtype)) f.float_scalars.insert(a.name);
    out.emplace(name, std::move(f));
  }
  return out;
}

}  // namespace hone
