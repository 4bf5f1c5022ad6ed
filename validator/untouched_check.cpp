#include "validator/untouched_check.hpp"

#include <cstring>

#include <fmt/format.h>

#include "core/index_inputs.hpp"
#include "validator/compare.hpp"

namespace hone {

namespace {

std::vector<std::int64_t> extents_of(const ArgSpec& a, const Bindings& shape) {
  std::vector<std::int64_t> e;
  for (const auto& d : a.dims) e.push_back(d.eval(shape));
  return e;
}

// The first element outside `ranges` whose bytes differ between the two buffers, or -1. Whole
// stretches are compared at once: a state pool is mostly outside what one batch addresses.
std::int64_t first_change_outside(const HostTensor& before, const HostTensor& after, const std::vector<ElementRange>& ranges) {
  const std::size_t size = dtype_size(before.dtype);
  auto differs = [&](std::int64_t b, std::int64_t e) -> std::int64_t {
    if (e <= b) return -1;
    const unsigned char *p = before.bytes.data() + b * size, *q = after.bytes.data() + b * size;
    if (std::memcmp(p, q, static_cast<std::size_t>(e - b) * size) == 0) return -1;
    for (std::int64_t i = b; i < e; ++i)
      if (!same_bits(before, after, static_cast<std::size_t>(i))) return i;
    return -1;
  };
  std::int64_t from = 0;
  for (const auto& r : ranges) {
    if (auto i = differs(from, r.begin); i >= 0) return i;
    from = r.end;
  }
  return differs(from, static_cast<std::int64_t>(before.count));
}

}  // namespace

std::vector<std::string> unaddressed_changes(const OpSpec& op, const Bindings& shape, const std::vector<HostTensor>& host,
                                             const std::vector<std::pair<std::size_t, HostTensor>>& outputs) {
  std::vector<std::string> problems;
  for (const auto& [i, after] : outputs) {
    const ArgSpec& a = op.args[i];
    if (a.role != ArgRole::InOut || !a.addressed) continue;
    const std::int64_t changed = first_change_outside(host[i], after, addressed_ranges(op, a, shape, host));
    if (changed >= 0)
      problems.push_back(fmt::format("changed '{}' at {}, which no value of '{}' addresses (a slot no row uses, or a padded "
                                     "row's): it must be left as it was",
                                     a.name, format_index(changed, extents_of(a, shape)), a.addressed->index));
  }
  return problems;
}

std::vector<std::string> scratch_zeroed_problems(const OpSpec& op, const Bindings& shape, const std::vector<HostTensor>& host,
                                                 const LaunchArgs& args) {
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < op.args.size(); ++i) {
    const ArgSpec& a = op.args[i];
    if (a.role != ArgRole::Scratch || a.zeroed.empty()) continue;
    const auto zeroed = std::min<std::size_t>(static_cast<std::size_t>(a.zeroed.eval(shape)), host[i].count);
    const HostTensor after = args.download(i, zeroed);
    for (std::size_t k = 0; k < after.size_bytes(); ++k)
      if (after.bytes[k] != 0) {
        problems.push_back(fmt::format("left the zeroed part of scratch '{}' non-zero (element {} of the first {}): the next "
                                       "call counts on it being zero",
                                       a.name, k / dtype_size(a.dtype), zeroed));
        break;
      }
  }
  return problems;
}

}  // namespace hone
