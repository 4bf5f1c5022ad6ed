#pragma once
// The emu device: kernels built by compile_for_emu run on the CPU. Its times are CPU times and
// are labelled so (timer "cpu").
#include "runtime/device.hpp"

namespace hone {

/// An emu device that checks and compiles for `arch` (the architecture whose code it emulates).
std::unique_ptr<Device> make_emu_device(const std::string& arch);

/// The CPU's model name, from /proc/cpuinfo.
std::string cpu_model_name();

}  // namespace hone
