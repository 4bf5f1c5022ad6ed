#pragma once
// What a launch must leave as it found it because its index inputs say so: the elements of an
// in-out buffer that no index addresses (the slots no row uses, so also the state a padded row
// would have touched), checked bit for bit; and the zeroed part of a scratch buffer, which the
// next call counts on.
#include <string>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"
#include "validator/kernel_args.hpp"

namespace hone {

/// The problems after a launch on `args`, which held `host` before it ("" none: empty).
std::vector<std::string> untouched_problems(const OpSpec& op, const Bindings& shape, const std::vector<HostTensor>& host,
                                            const LaunchArgs& args);

}  // namespace hone
