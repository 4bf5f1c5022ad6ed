#pragma once
// The one exception the kernel cache loader throws: a cache it cannot use (a malformed or newer
// manifest, a missing file, a SHA-256 mismatch) or a launch that cannot happen. The message
// names the file or the kernel and the problem. A lookup that finds nothing is not an error: it
// is a miss with its reason (CachedKernel).
#include <stdexcept>
#include <string>

namespace hone {

struct KernelCacheError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace hone
