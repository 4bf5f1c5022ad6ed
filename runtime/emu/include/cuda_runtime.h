#pragma once
// The emu device's <cuda_runtime.h>: device code needs nothing beyond what the prelude provides.
#include "hone_emu/prelude.h"
