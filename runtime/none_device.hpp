#pragma once
// The none device: compile and static checks only, for an architecture given by name. It runs
// nothing; a job on it measures how fast candidates go through compilation and static checks.
#include "runtime/device.hpp"

namespace hone {

std::unique_ptr<Device> make_none_device(const std::string& arch);

}  // namespace hone
