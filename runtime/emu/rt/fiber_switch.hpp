#pragma once
// The context switch between emu's CUDA threads: the callee-saved registers are pushed on the
// running stack, the stack pointer is saved and the other thread's loaded, its registers are
// popped, and `ret` goes back to where it stopped. A call and a ret in pairs keep the CPU's return
// predictor right: every thread stops at the same few call sites, so the addresses it predicts
// are those on the stack it switches to. Boost.Context's jump ends in an indirect jmp instead,
// which leaves the predictor one entry off for every return after a switch: 25.6 ns a switch
// against 4.9 ns on the 2-core machine of README's emu section (32 threads in a ring, the same
// call chain), and a warp shuffle costs half a switch per lane.
//
// x86-64 System V only, as emu itself. MXCSR and the x87 control word are not switched: every
// thread of a block runs with its OS thread's, and nothing in emu changes them.
#include <cstddef>

extern "C" {
/// Saves the running context's stack pointer in *save_sp and resumes the context whose stack
/// pointer is load_sp; returns when some context switches back to *save_sp.
void hone_emu_fiber_switch(void** save_sp, void* load_sp);
}

namespace hone::emu {

/// Lays out the top of a fresh stack so that switching to the returned stack pointer calls
/// entry(arg) on it. `entry` must never return: it ends by switching away for good.
void* fiber_start_frame(void* stack_top, void (*entry)(void*), void* arg);

}  // namespace hone::emu
