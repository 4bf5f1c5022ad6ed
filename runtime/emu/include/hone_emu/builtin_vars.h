#pragma once
// threadIdx, blockIdx, blockDim, gridDim and warpSize: read-only views of the running thread.
#include "hone_emu/abi.h"

#define threadIdx (static_cast<const uint3&>(::hone_emu_self->thread_idx))
#define blockIdx (static_cast<const uint3&>(::hone_emu_self->block_idx))
#define blockDim (static_cast<const dim3&>(::hone_emu_self->block_dim))
#define gridDim (static_cast<const dim3&>(::hone_emu_self->grid_dim))

static constexpr int warpSize = 32;

namespace hone_emu {
inline unsigned int lane_id() { return ::hone_emu_self->lane; }
inline unsigned char* dynamic_smem() { return ::hone_emu_self->dynamic_smem; }
}  // namespace hone_emu
