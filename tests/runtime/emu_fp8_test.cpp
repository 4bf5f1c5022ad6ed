// e4m3 on the emu device: conversions bit for bit against core/dtype.hpp, through every spelling
// of the emulated cuda_fp8.h.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/dtype.hpp"
#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

TEST_CASE("emu: e4m3 conversions equal core/dtype.hpp bit for bit") {
  const EmuModule m = build("fp8_types.cu", "fp8_conversions", {"unsigned char*", "float*", "int*", "const float*", "int"});
  std::vector<float> in;
  // Every code's value, the midpoints between neighbours (the ties) and values just beside them.
  for (unsigned c = 0; c < 0x7f; ++c) {
    const float v = e4m3_to_float(static_cast<std::uint8_t>(c));
    const float next = c + 1 < 0x7f ? e4m3_to_float(static_cast<std::uint8_t>(c + 1)) : 512.0f;
    const float mid = (v + next) / 2;
    for (float x : {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      in.push_back(x);
      in.push_back(-x);
    }
  }
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> moderate(-600.0f, 600.0f);
  for (int i = 0; i < 20000; ++i) {
    std::uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    in.push_back(f);
    in.push_back(moderate(rng));
  }
  for (float s : {0.0f, -0.0f, 448.0f, 464.0f, 465.0f, 1e30f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), std::ldexp(1.0f, -10)})
    in.push_back(s);
  int n = static_cast<int>(in.size());
  std::vector<unsigned char> codes(in.size());
  std::vector<float> back(in.size());
  std::vector<int> agree(in.size(), 0);
  unsigned char* pc = codes.data();
  float* pb = back.data();
  int* pa = agree.data();
  const float* x = in.data();
  auto a = args(pc, pb, pa, x, n);
  m.launch(dims({32, 1, 1}, {256, 1, 1}), a.data());
  int bad = 0;
  for (std::size_t i = 0; i < in.size() && bad < 10; ++i) {
    const float want = e4m3_to_float(float_to_e4m3(in[i]));
    const bool same_back = (std::isnan(want) && std::isnan(back[i])) || std::memcmp(&want, &back[i], 4) == 0;
    const bool ok = codes[i] == float_to_e4m3(in[i]) && same_back && agree[i] == 1;
    if (!ok) {
      ++bad;
      INFO("input " << in[i] << ": emu code " << int(codes[i]) << ", host " << int(float_to_e4m3(in[i])) << ", agree " << agree[i]);
      CHECK(ok);
    }
  }
  CHECK(bad == 0);
}
