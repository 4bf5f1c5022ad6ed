#pragma once
// Whether a task's evaluations fit in this machine's memory, told before a job runs them rather
// than learned from the kernel's OOM killer: an attention task at batch 64 and 32K tokens of
// context has an 8.6 GB KV pool, and on emu, whose device memory is this machine's, each check
// holds it twice. A worker killed for memory costs each candidate minutes of drawing first, and on
// a shared CI runner the killer may pick another process.
#include <cstdint>
#include <string>

#include "core/op_spec.hpp"

namespace hone {

/// This machine's memory one evaluation of `op` at `shape` holds at its peak on a device of
/// `device_kind`. The host holds every buffer as drawn, a large In operand a second time (kept for
/// the next check, validator/shared_operands.hpp, and the check's own copy), and each output three
/// times more (the candidate's results, the reference's, and the first check's kept for the
/// consistency stage); on emu the device's buffers, every input and the outputs of the launch at
/// hand, are this machine's memory too.
std::uint64_t evaluation_memory_bytes(const OpSpec& op, const Bindings& shape, const std::string& device_kind);

/// Memory this machine can give without swapping (MemAvailable in /proc/meminfo); 0 when unknown.
std::uint64_t available_memory_bytes();

/// Why an evaluation needing `need` bytes cannot run where `available` are free: "" when it fits,
/// when `available` is unknown (0), or on device none, where nothing runs.
std::string memory_shortfall(std::uint64_t need, std::uint64_t available, const std::string& device_kind);

/// "8.6 GB", "512 MB", "2.2 TB".
std::string memory_words(double bytes);

}  // namespace hone
