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

/// Resolves "auto" | "emu" | "cuda" | "none". Throws InputError for an unknown name, and for "cuda" when
/// it cannot be used here (the message says why in one line).
DeviceChoice choose_device(const std::string& requested);

/// Opens a device of the chosen kind, checking and compiling for `arch`.
std::unique_ptr<Device> open_device(const std::string& kind, const std::string& arch);

/// Whether libcuda.so.1 can be loaded on this machine (a driver is installed).
bool cuda_driver_present();

}  // namespace hone
