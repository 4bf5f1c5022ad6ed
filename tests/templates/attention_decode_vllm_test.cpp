// attention_decode called as engines call paged decode attention: q a view into vLLM's qkv rows
// (q_stride = (HQ + 2*HKV) * D), the caches [num_blocks, PAGE, HKV, D] (vLLM's FlashAttention
// layout) or K and V pages interleaved in one pool (FlashInfer's, page_stride = 2*PAGE*HKV*D),
// block_table rows holding junk past each sequence's pages, a padded row of length 0 and a row of
// length 1, the workspace's counters zeroed once at allocation as an engine would. The reference
// and each variant, on the emu device, against the contract computed here in double; called twice, so a counter the
// first call left non-zero shows.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "core/host_tensor.hpp"
#include "core/paths.hpp"
#include "runtime/emu_device.hpp"
#include "support/emu_image.hpp"
#include "tuner/template_proposer.hpp"

using namespace hone;

namespace {

constexpr int kBatch = 3, kHQ = 8, kHKV = 2, kD = 64, kPage = 16, kMaxp = 4, kPool = 13;
constexpr int kQStride = (kHQ + 2 * kHKV) * kD;

struct Layout {
  const char* name;
  int page_stride;
  long long v_offset;  // where v_cache starts in the pool
};

std::vector<std::uint16_t> bf16_values(std::size_t n, double std, Rng& rng) {
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = float_to_bf16(static_cast<float>(rng.normal(0.0, std)));
  return v;
}

}  // namespace

TEST_CASE("attention_decode: every variant on vLLM's and FlashInfer's cache layouts matches the contract") {
  const OpSpec op = load_op(templates_root(), "attention_decode");
  const std::vector<int> lens{37, 0, 1};
  // Pages taken from the pool out of order; -1 and a page id past the pool past each sequence.
  const std::vector<int> table{9, 2, 11, -1, 4, 7, 5, 3, 0, 12345, -1, -1};
  const float scale = 0.125f;
  auto device = make_emu_device("sm_90");
  for (const Layout& layout : {Layout{"vLLM", kPage * kHKV * kD, 0}, Layout{"FlashInfer", 2 * kPage * kHKV * kD, kPage * kHKV * kD}}) {
    CAPTURE(layout.name);
    const Bindings shape{{"batch", kBatch}, {"HQ", kHQ}, {"HKV", kHKV}, {"D", kD}, {"PAGE", kPage}, {"MAXP", kMaxp},
                         {"q_stride", kQStride}, {"page_stride", layout.page_stride}};
    Rng rng(7);
    const std::size_t pool_elems = static_cast<std::size_t>(kPool) * layout.page_stride * (layout.v_offset ? 1 : 2);
    const auto pool = bf16_values(pool_elems, 1.0, rng);
    const auto qkv = bf16_values(static_cast<std::size_t>(kBatch) * kQStride, 1.0, rng);
    const long long v_start = layout.v_offset ? layout.v_offset : static_cast<long long>(kPool) * layout.page_stride;

    // The contract in double.
    std::vector<double> expected(static_cast<std::size_t>(kBatch) * kHQ * kD, 0.0);
    for (int b = 0; b < kBatch; ++b)
      for (int h = 0; h < kHQ; ++h) {
        std::vector<double> s(static_cast<std::size_t>(lens[b]));
        auto at = [&](int i) {
          return static_cast<long long>(table[b * kMaxp + i / kPage]) * layout.page_stride + (i % kPage * kHKV + h / (kHQ / kHKV)) * kD;
        };
        for (int i = 0; i < lens[b]; ++i) {
          double dot = 0;
          for (int d = 0; d < kD; ++d) dot += bf16_to_float(qkv[b * kQStride + h * kD + d]) * bf16_to_float(pool[at(i) + d]);
          s[i] = dot * scale;
        }
        const double top = lens[b] ? *std::max_element(s.begin(), s.end()) : 0.0;
        double sum = 0;
        for (auto& x : s) sum += (x = std::exp(x - top));
        for (int i = 0; i < lens[b]; ++i)
          for (int d = 0; d < kD; ++d)
            expected[(static_cast<std::size_t>(b) * kHQ + h) * kD + d] += s[i] / sum * bf16_to_float(pool[v_start + at(i) + d]);
      }

    DeviceBuffer pool_buf(*device, pool.size() * 2), q_buf(*device, qkv.size() * 2), out_buf(*device, expected.size() * 2);
    DeviceBuffer table_buf(*device, table.size() * 4), lens_buf(*device, lens.size() * 4);
    const std::size_t ws_elems = static_cast<std::size_t>(op.find_arg("workspace")->elements(shape));
    DeviceBuffer ws_buf(*device, ws_elems * 4);
    device->upload(pool_buf.get(), pool.data(), pool.size() * 2);
    device->upload(q_buf.get(), qkv.data(), qkv.size() * 2);
    device->upload(table_buf.get(), table.data(), table.size() * 4);
    device->upload(lens_buf.get(), lens.data(), lens.size() * 4);
    std::vector<float> ws(ws_elems, std::nanf(""));
    std::fill(ws.begin(), ws.begin() + kBatch * kHKV, 0.f);  // the counters, zeroed once
    device->upload(ws_buf.get(), ws.data(), ws.size() * 4);

    // Within a bf16 rounding of the contract for the reference (it computes in double), and
    // within the spec's tolerance for the variants.
    auto check_kernel = [&](const Candidate& c, double rtol, double atol) {
      CAPTURE(c.label());
      auto kernel = device->load(test::emu_image(c.source, c.entry, kernel_param_types(op)));
      for (int call = 0; call < 2; ++call) {
        CAPTURE(call);
        void* out_ptr = out_buf.get();
        const void* q_ptr = q_buf.get();
        const void* k_ptr = pool_buf.get();
        const void* v_ptr = static_cast<const char*>(pool_buf.get()) + v_start * 2;
        const void* table_ptr = table_buf.get();
        const void* lens_ptr = lens_buf.get();
        void* ws_ptr = ws_buf.get();
        int batch = kBatch, hq = kHQ, hkv = kHKV, d = kD, page = kPage, maxp = kMaxp, qs = kQStride, ps = layout.page_stride;
        float sc = scale;
        void* argv[] = {&out_ptr, &q_ptr, &k_ptr, &v_ptr, &table_ptr, &lens_ptr, &ws_ptr, &batch, &hq, &hkv, &d, &page, &maxp, &qs, &ps, &sc};
        std::vector<std::uint16_t> poison(expected.size(), 0x7fc0);
        device->upload(out_buf.get(), poison.data(), poison.size() * 2);
        device->launch(*kernel, c.launch.eval(shape), argv);
        std::vector<std::uint16_t> got(expected.size());
        device->download(got.data(), out_buf.get(), got.size() * 2);
        int mismatches = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          const double g = bf16_to_float(got[i]);
          mismatches += !(std::fabs(g - expected[i]) <= atol + std::fabs(expected[i]) * rtol);
        }
        CHECK(mismatches == 0);
        std::vector<int> counters(kBatch * kHKV);
        device->download(counters.data(), ws_buf.get(), counters.size() * 4);
        CHECK(std::all_of(counters.begin(), counters.end(), [](int x) { return x == 0; }));
      }
    };
    check_kernel(reference_candidate(op), 1.0 / 256, 1e-30);
    const auto space = template_space(op, shape);
    for (const auto& variant : op.variants) {
      int tried = 0;
      for (const auto& point : space) {
        if (point.variant != &variant || tried++ >= 2) continue;
        check_kernel(render_template(op, variant, point.config, shape), 1.0 / 64, 1e-4);
      }
      CHECK(tried >= 1);
    }
  }
}
