#pragma once
// The thread-block cluster an entry was compiled for, read from its PTX: `__cluster_dims__(x, y,
// z)` on a kernel becomes `.reqnctapercluster x, y, z` among the entry's directives, however the
// source spelled it (a macro, a constant). The driver launches such a kernel in clusters without
// being asked; the emu device reads the dims here to do the same.
#include <array>
#include <string>

namespace hone {

/// The cluster dims of `entry` in `ptx`; (1,1,1) when it declares none or the PTX lacks the entry.
std::array<unsigned, 3> ptx_cluster_dims(const std::string& ptx, const std::string& entry);

}  // namespace hone
