#pragma once
// Which entry of a manifest serves an op at a runtime shape on a GPU of a given architecture,
// and from which image: the rules of FORMAT.md ("How a loader picks an entry"). Pure: no files,
// no driver. A miss carries the reason, said so that the person reading a log can act on it.
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "hone/kernel_cache/manifest.hpp"

namespace hone::kernel_cache {

struct DevicePolicy {
  std::string arch;                  // the GPU's architecture, "sm_90"
  bool allow_other_devices = false;  // serve entries measured on another device kind or architecture
};

struct Selection {
  const CacheEntry* entry = nullptr; // null on a miss
  std::string image;                 // "cubin" | "ptx"
  std::string reason;                // why nothing was selected; "" on a hit
};

namespace detail {

struct ArchId {
  int number = -1;       // 90 for sm_90, sm_90a and compute_90
  std::string suffix;    // "a" or "f": architecture-specific features, runs on that architecture only
};

inline ArchId parse_arch(const std::string& arch) {
  ArchId id;
  std::size_t p = arch.rfind("sm_", 0) == 0 ? 3 : arch.rfind("compute_", 0) == 0 ? 8 : std::string::npos;
  if (p == std::string::npos) return id;
  std::size_t q = p;
  while (q < arch.size() && std::isdigit(static_cast<unsigned char>(arch[q]))) ++q;
  if (q == p) return id;
  id.number = std::stoi(arch.substr(p, q - p));
  id.suffix = arch.substr(q);
  return id;
}

inline std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

// "" when the entry's static dims and buckets hold the shape, else what does not fit.
inline std::string shape_mismatch(const CacheEntry& e, const Shape& shape, bool& static_ok) {
  static_ok = true;
  for (const auto& [k, v] : e.static_dims) {
    auto it = shape.find(k);
    if (it == shape.end()) {
      static_ok = false;
      return "the shape lacks '" + k + "'";
    }
    if (it->second != v) {
      static_ok = false;
      return k + "=" + std::to_string(it->second) + " (entry is for " + k + "=" + std::to_string(v) + ")";
    }
  }
  for (const auto& [k, b] : e.buckets) {
    auto it = shape.find(k);
    if (it == shape.end()) return "the shape lacks '" + k + "'";
    if (it->second < b.lo || it->second > b.hi)
      return k + "=" + std::to_string(it->second) + " is outside " + std::to_string(b.lo) + ".." + std::to_string(b.hi);
  }
  return "";
}

// "" when the entry may run on the policy's GPU, with `image` set; else why not.
inline std::string device_mismatch(const CacheEntry& e, const DevicePolicy& policy, std::string& image) {
  const ArchId want = parse_arch(policy.arch);
  const ArchId have = parse_arch(e.arch);
  if (!policy.allow_other_devices) {
    if (e.device.kind != "cuda")
      return "measured on " + (e.device.id.empty() ? e.device.kind : e.device.id) + " (device kind '" + e.device.kind +
             "', not a GPU), so its time says nothing about this GPU; opt in to entries measured elsewhere to use it";
    if (e.arch != policy.arch)
      return "measured on " + e.device.id + " for " + e.arch + ", not " + policy.arch +
             "; opt in to entries measured elsewhere to use it";
  }
  if (e.files.count("cubin") && e.arch == policy.arch) {
    image = "cubin";
    return "";
  }
  // PTX JIT-compiles for its own architecture or a newer one; arch-specific PTX (sm_90a) only for its own.
  const bool ptx_fits = have.number > 0 && want.number >= have.number && (have.suffix.empty() || e.arch == policy.arch);
  if (e.files.count("ptx") && ptx_fits) {
    image = "ptx";
    return "";
  }
  std::string has;
  if (e.files.count("cubin")) has = "CUBIN for " + e.arch;
  if (e.files.count("ptx")) has += std::string(has.empty() ? "" : " and ") + "PTX for " + e.arch;
  return "has " + has + ", which cannot run on " + policy.arch + " (a CUBIN must match the architecture; PTX JIT-compiles for its own or a newer one)";
}

}  // namespace detail

/// Picks the entry for `op` at `shape` under `policy`. Among the entries that may run, a CUBIN
/// beats PTX, then the fastest recorded time wins. `where` names the cache in miss reasons.
inline Selection select_entry(const Manifest& m, const std::string& op, const Shape& shape, const DevicePolicy& policy,
                              const std::string& where) {
  Selection sel;
  std::set<std::string> ops;
  std::vector<const CacheEntry*> same_op;
  for (const auto& e : m.entries) {
    ops.insert(e.op);
    if (e.op == op) same_op.push_back(&e);
  }
  if (same_op.empty()) {
    sel.reason = "no entry for op '" + op + "' in " + where + " (it holds: " +
                 (ops.empty() ? std::string("nothing") : detail::join({ops.begin(), ops.end()}, ", ")) + ")";
    return sel;
  }

  std::vector<const CacheEntry*> fits;
  std::vector<std::string> shape_misses, device_misses;
  for (const CacheEntry* e : same_op) {
    bool static_ok = false;
    const std::string why = detail::shape_mismatch(*e, shape, static_ok);
    if (!why.empty()) {
      shape_misses.push_back(e->label() + ": " + why);
      continue;
    }
    fits.push_back(e);
  }
  if (fits.empty()) {
    sel.reason = "no " + op + " entry in " + where + " serves this shape: " + detail::join(shape_misses, "; ");
    return sel;
  }

  const CacheEntry* best = nullptr;
  std::string best_image;
  for (const CacheEntry* e : fits) {
    if (e->vendor()) {
      device_misses.push_back(e->label() + ": the fastest kernel measured for it is the vendor library " + e->origin.substr(7) +
                              " (no hone kernel beat it): keep calling the library");
      continue;
    }
    std::string image;
    const std::string why = detail::device_mismatch(*e, policy, image);
    if (!why.empty()) {
      device_misses.push_back(e->label() + " (" + e->entry + "): " + why);
      continue;
    }
    const bool better = !best || (image == "cubin" && best_image != "cubin") ||
                        (image == best_image && e->time_ms < best->time_ms);
    if (better) {
      best = e;
      best_image = image;
    }
  }
  if (!best) {
    sel.reason = "an entry in " + where + " serves this shape but cannot be used on " + policy.arch + ": " +
                 detail::join(device_misses, "; ");
    return sel;
  }
  sel.entry = best;
  sel.image = best_image;
  return sel;
}

}  // namespace hone::kernel_cache
