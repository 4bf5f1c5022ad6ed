#pragma once
// The emu device's <device_launch_parameters.h>: device code needs nothing beyond what the prelude provides.
#include "hone_emu/prelude.h"
