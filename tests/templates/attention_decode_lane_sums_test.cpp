// attention_decode's sum_over_lanes (online_softmax.cuh): N values summed over aligned groups of
// 2 O lanes, by halving exchanges while N is even and butterflies once it is odd, every sum left
// in every lane of its group. The counts the model files give it: one head (MHA), Llama's and
// Qwen3's 4, Qwen2.5's 7, Qwen3-Next's 8, times 1 to 4 tokens a step, over 4 to 32 lanes. Small
// integers, so every float sum is exact; in plain order and in a seeded one.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/op_spec.hpp"
#include "core/paths.hpp"
#include "runtime/emu_device.hpp"
#include "support/emu_image.hpp"

using namespace hone;

TEST_CASE("attention_decode: sum_over_lanes leaves each value's group sum in every lane of the group") {
  const OpSpec op = load_op(templates_root(), "attention_decode");
  const Variant* split_kv = nullptr;
  for (const Variant& v : op.variants)
    if (v.name == "attention_decode_split_kv") split_kv = &v;
  REQUIRE(split_kv);
  auto device = make_emu_device("sm_90");
  struct Case {
    int n, o;
  };
  for (const Case c : {Case{1, 16}, Case{3, 4}, Case{4, 16}, Case{7, 8}, Case{14, 4}, Case{8, 16}, Case{32, 4}, Case{16, 1}}) {
    CAPTURE(c.n);
    CAPTURE(c.o);
    const std::string source = split_kv->source.text + fmt::format(R"(
extern "C" __global__ void lane_sums(float* out, const float* in) {{
  float v[{0}];
  for (int j = 0; j < {0}; ++j) v[j] = in[threadIdx.x * {0} + j];
  sum_over_lanes<{0}, {1}>(v);
  for (int j = 0; j < {0}; ++j) out[threadIdx.x * {0} + j] = v[j];
}}
)", c.n, c.o);
    auto kernel = device->load(test::emu_image(source, "lane_sums", {"float*", "const float*"}));
    const std::size_t count = 32u * static_cast<std::size_t>(c.n);
    std::vector<float> in(count);
    for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<float>(static_cast<int>((i * 37) % 23) - 11);
    std::vector<float> expected(count, 0.0f);
    const int group = 2 * c.o;
    for (int lane = 0; lane < 32; ++lane)
      for (int j = 0; j < c.n; ++j)
        for (int m = lane / group * group; m < lane / group * group + group; ++m)
          expected[static_cast<std::size_t>(lane * c.n + j)] += in[static_cast<std::size_t>(m * c.n + j)];
    DeviceBuffer in_buf(*device, count * 4), out_buf(*device, count * 4);
    device->upload(in_buf.get(), in.data(), count * 4);
    for (const std::uint64_t seed : {0ull, 5ull}) {
      CAPTURE(seed);
      device->set_schedule_seed(seed);
      void* out_ptr = out_buf.get();
      const void* in_ptr = in_buf.get();
      void* argv[] = {&out_ptr, &in_ptr};
      device->launch(*kernel, LaunchDims{{1, 1, 1}, {32, 1, 1}, 0}, argv);
      std::vector<float> got(count);
      device->download(got.data(), out_buf.get(), count * 4);
      CHECK(got == expected);
    }
    device->set_schedule_seed(0);
  }
}
