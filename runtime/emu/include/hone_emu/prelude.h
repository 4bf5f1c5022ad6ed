#pragma once
// Force-included (g++ -include) before every kernel the emu device compiles. It turns CUDA C++
// device code into host C++ whose built-ins call the hone_emu_rt runtime. Kept light (C headers,
// <math.h> and <type_traits>) so a kernel compiles in well under a second.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hone_emu/intrinsics.h"   // system headers first, before CUDA's macros exist
#include "hone_emu/device_misc.h"

#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 900
#endif
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define HONE_EMU 1

#include "hone_emu/qualifiers.h"
#include "hone_emu/vector_types.h"
#include "hone_emu/builtin_vars.h"
#include "hone_emu/sync.h"
#include "hone_emu/warp.h"
#include "hone_emu/atomics.h"
