#pragma once
// The emu device's <vector_types.h>: device code needs nothing beyond what the prelude provides.
#include "hone_emu/prelude.h"
