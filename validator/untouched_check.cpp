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

// The first element outside `ranges` whose bytes differ between the two buffers, or -1.
std::int64_t first_change_outside(const HostTensor& before, const HostTensor& after, const std::vector<ElementRange>& ranges) {
  const std::size_t size = dtype_size(before.dtype);
  std::int64_t from = 0;
  auto differs = [&](std::int64_t b, std::int64_t e) -> std::int64_t {
    for (std::int64_t i = b; i < e; ++i)
      if (std::memcmp(before.bytes.data() + i * size, after.bytes.data() + i * size, size) != 0) return i;
    return -1;
  };
  for (const auto& r : ranges) {
    if (auto i = differs(from, r.begin); i >= 0) return i;
    from = r.end;
  }
  return differs(from, static_cast<std::int64_t>(before.count));
}

}  // namespace

std::vector<std::string> untouched_problems(const OpSpec& op, const Bindings& shape, const std::vector<HostTensor>& host,
                                            const LaunchArgs& args) {
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < op.args.size(); ++i) {
    const ArgSpec& a = op.args[i];
    if (a.role == ArgRole::InOut && a.addressed) {
      const HostTensor after = args.download(i);
      const std::int64_t changed = first_change_outside(host[i], after, addressed_ranges(op, a, shape, host));
      if (changed >= 0)
        problems.push_back(fmt::format("changed '{}' at {}, which no value of '{}' addresses (a slot no row uses, or a padded "
                                       "row's): it must be left as it was",
                                       a.name, format_index(changed, extents_of(a, shape)), a.addressed->index));
    }
    if (a.role == ArgRole::Scratch && !a.zeroed.empty()) {
      const HostTensor after = args.download(i);
      const auto zeroed = std::min<std::size_t>(static_cast<std::size_t>(a.zeroed.eval(shape)), after.count);
      for (std::size_t k = 0; k < zeroed * dtype_size(a.dtype); ++k)
        if (after.bytes[k] != 0) {
          problems.push_back(fmt::format("left the zeroed part of scratch '{}' non-zero (element {} of the first {}): the next "
                                         "call counts on it being zero",
                                         a.name, k / dtype_size(a.dtype), zeroed));
          break;
        }
    }
  }
  return problems;
}

}  // namespace hone
