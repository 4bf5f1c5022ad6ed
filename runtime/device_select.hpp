#pragma once
// Choosing the device a job runs on: `auto` takes a GPU when hone can drive one, else emu.
#include <memory>
#include <string>

#include "runtime/device.hpp"

namespace hone {

struct DeviceChoice {
  std::string kind;   // "emu" | "cuda" | "none"
  std::string note;   // one line for the user when auto fell back, "" otherwise
};

/// Whether this machine has a GPU hone can drive: "" when it has, else the one-line reason (no
/// driver, a driver that does not initialise, no GPU). Asks the driver once per process.
std::string cuda_unavailable_reason();

/// Resolves "auto" | "emu" | "cuda" | "none". Throws InputError for an unknown name, and for "cuda" when
/// it cannot be used here (the message says why in one line).
DeviceChoice choose_device(const std::string& requested);

/// Opens a device of the chosen kind. emu and none check and compile for `arch`; cuda is GPU 0
/// of those the process sees (CUDA_VISIBLE_DEVICES picks which) and compiles for its own.
std::unique_ptr<Device> open_device(const std::string& kind, const std::string& arch);

}  // namespace hone
