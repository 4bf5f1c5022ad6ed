#pragma once
// What a launch must leave as it found it because its index inputs say so: the elements of an
// in-out buffer that no index addresses (the slots no row uses, so also the state a padded row
// would have touched), checked bit for bit; and the zeroed part of a scratch buffer, which the
// next call counts on.
#include <string>
#include <utility>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"
#include "validator/kernel_args.hpp"

namespace hone {

/// The elements of addressed in-out buffers that a launch changed though no index addresses
/// them, as reasons (none: empty); `host` is what the launch started from, `outputs` its Out and
/// InOut buffers as downloaded after it (argument index, values).
std::vector<std::string> unaddressed_changes(const OpSpec& op, const Bindings& shape, const std::vector<HostTensor>& host,
                                             const std::vector<std::pair<std::size_t, HostTensor>>& outputs);

/// A zeroed part of a scratch buffer that the launch on `args` left non-zero, as a reason.
std::vector<std::string> scratch_zeroed_problems(const OpSpec& op, const Bindings& shape, const std::vector<HostTensor>& host,
                                                 const LaunchArgs& args);

}  // namespace hone
