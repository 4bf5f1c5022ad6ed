#pragma once

// VEC consecutive floats moved as one aligned load or store (VEC=4 is 16 bytes).
template <int VEC>
struct alignas(4 * VEC) FloatPack {
  float v[VEC];
};
