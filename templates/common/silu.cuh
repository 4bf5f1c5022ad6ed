#pragma once

// silu(g) * u in fp32. __expf is the hardware exp2 path; its error (a few ulp of fp32) is far
// below bf16's rounding. For g << 0, __expf(-g) is inf and g / inf is -0: the right limit.
__device__ __forceinline__ float silu_times(float g, float u) { return g / (1.f + __expf(-g)) * u; }
