#pragma once
// What a completed warp barrier hands its members: their values, kept until each member has read
// them, that is until it calls into the runtime again (or exits).
namespace hone::emu {

struct GatheredValues {
  unsigned long long values[32];
  unsigned readers = 0;
};

}  // namespace hone::emu
