// rope and qk_norm_rope called as vLLM calls its rotary embedding: the fused qkv projection's
// output [tokens, (HQ + 2*HKV) * D] (Qwen3-Next: each q head followed by its gate) rotated in
// place, the cos_sin cache as vLLM's RotaryEmbedding builds it (per position, cos then sin of
// p * theta^(-2i/ROT)), and int64 positions that are not consecutive. Each variant, on the emu
// device, against the contract computed here in double; what the kernel must not touch is
// compared bit for bit.
#include <doctest/doctest.h>

#include <cmath>

#include "core/host_tensor.hpp"
#include "core/paths.hpp"
#include "runtime/emu_device.hpp"
#include "support/emu_image.hpp"
#include "tuner/template_proposer.hpp"

using namespace hone;

namespace {

struct Layout {
  int tokens, hq, hkv, d, qh, rot, maxpos;
  double theta;
  int row() const { return hq * qh + 2 * hkv * d; }
};

std::vector<float> vllm_cos_sin_cache(const Layout& l) {
  std::vector<float> cache(static_cast<std::size_t>(l.maxpos) * l.rot);
  for (int p = 0; p < l.maxpos; ++p)
    for (int i = 0; i < l.rot / 2; ++i) {
      const double angle = p * std::pow(l.theta, -2.0 * i / l.rot);
      cache[static_cast<std::size_t>(p) * l.rot + i] = static_cast<float>(std::cos(angle));
      cache[static_cast<std::size_t>(p) * l.rot + l.rot / 2 + i] = static_cast<float>(std::sin(angle));
    }
  return cache;
}

// The contract in double for one head of `d` values at `x` (norm weights w, or none for rope);
// returns the expected head.
std::vector<double> expected_head(const std::uint16_t* x, const std::vector<std::uint16_t>* w, double eps, double w_offset,
                                  const float* cs, const Layout& l) {
  std::vector<double> v(l.d);
  for (int i = 0; i < l.d; ++i) v[i] = bf16_to_float(x[i]);
  if (w) {
    double sum_sq = 0;
    for (double a : v) sum_sq += a * a;
    const double inv = 1.0 / std::sqrt(sum_sq / l.d + eps);
    for (int i = 0; i < l.d; ++i) v[i] *= inv * (bf16_to_float((*w)[i]) + w_offset);
  }
  std::vector<double> y = v;
  const int half = l.rot / 2;
  for (int i = 0; i < half; ++i) {
    y[i] = v[i] * cs[i] - v[i + half] * cs[half + i];
    y[i + half] = v[i + half] * cs[i] + v[i] * cs[half + i];
  }
  return y;
}

// Runs the first configuration of every variant of `family` on one qkv tensor laid out as `l`
// and checks each element: rotated (and normed) q and k heads within 1/64, everything else
// unchanged to the bit.
void check_family(const std::string& family, const Layout& l, float w_offset) {
  const OpSpec op = load_op(templates_root(), family);
  const bool norm = family == "qk_norm_rope";
  Bindings shape{{"tokens", l.tokens}, {"HQ", l.hq}, {"HKV", l.hkv}, {"D", l.d}, {"ROT", l.rot}, {"MAXPOS", l.maxpos}};
  if (norm) shape["QH"] = l.qh;
  auto device = make_emu_device("sm_90");
  const auto space = template_space(op, shape);
  const auto cache = vllm_cos_sin_cache(l);
  std::vector<long long> positions;
  for (int t = 0; t < l.tokens; ++t) positions.push_back((t * 7919LL + 3) % l.maxpos);  // 3, 7922, ... not consecutive

  Rng rng(7);
  const std::size_t n = static_cast<std::size_t>(l.tokens) * l.row();
  std::vector<std::uint16_t> qkv(n), q_w(l.d), k_w(l.d);
  for (auto& x : qkv) x = float_to_bf16(static_cast<float>(rng.normal(0, 1)));
  for (auto& x : q_w) x = float_to_bf16(static_cast<float>(rng.normal(w_offset ? 0 : 1, 0.2)));
  for (auto& x : k_w) x = float_to_bf16(static_cast<float>(rng.normal(w_offset ? 0 : 1, 0.2)));

  // Where each head starts in a row, the q heads first; every other element must be unchanged.
  std::vector<std::pair<int, bool>> heads;
  for (int j = 0; j < l.hq; ++j) heads.push_back({j * l.qh, true});
  for (int j = 0; j < l.hkv; ++j) heads.push_back({l.hq * l.qh + j * l.d, false});
  const float eps = 1e-6f;
  std::vector<double> expected(n);
  std::vector<bool> changed(n, false);
  for (int t = 0; t < l.tokens; ++t) {
    const std::size_t row = static_cast<std::size_t>(t) * l.row();
    for (std::size_t i = 0; i < static_cast<std::size_t>(l.row()); ++i) expected[row + i] = bf16_to_float(qkv[row + i]);
    for (const auto& [start, is_q] : heads) {
      const auto y = expected_head(&qkv[row + start], norm ? (is_q ? &q_w : &k_w) : nullptr, eps, w_offset,
                                   &cache[static_cast<std::size_t>(positions[t]) * l.rot], l);
      for (int i = 0; i < l.d; ++i)
        if (norm || i < l.rot) {
          expected[row + start + i] = y[i];
          changed[row + start + i] = true;
        }
    }
  }

  for (const auto& variant : op.variants) {
    const auto point = std::find_if(space.begin(), space.end(), [&](const TemplatePoint& p) { return p.variant == &variant; });
    REQUIRE(point != space.end());
    const Candidate c = render_template(op, variant, point->config, shape);
    CAPTURE(c.label());
    auto kernel = device->load(test::emu_image(c.source, c.entry, kernel_param_types(op)));

    DeviceBuffer d_qkv(*device, n * 2), d_cs(*device, cache.size() * 4), d_pos(*device, positions.size() * 8),
        d_qw(*device, l.d * 2), d_kw(*device, l.d * 2);
    device->upload(d_qkv.get(), qkv.data(), n * 2);
    device->upload(d_cs.get(), cache.data(), cache.size() * 4);
    device->upload(d_pos.get(), positions.data(), positions.size() * 8);
    device->upload(d_qw.get(), q_w.data(), l.d * 2);
    device->upload(d_kw.get(), k_w.data(), l.d * 2);
    void* qkv_ptr = d_qkv.get();
    const void *cs_ptr = d_cs.get(), *pos_ptr = d_pos.get(), *qw_ptr = d_qw.get(), *kw_ptr = d_kw.get();
    int tokens = l.tokens, hq = l.hq, hkv = l.hkv, d = l.d, qh = l.qh, rot = l.rot, maxpos = l.maxpos;
    float e = eps, offset = w_offset;
    if (norm) {
      void* argv[] = {&qkv_ptr, &qw_ptr, &kw_ptr, &cs_ptr, &pos_ptr, &tokens, &hq, &hkv, &d, &qh, &rot, &maxpos, &e, &offset};
      device->launch(*kernel, c.launch.eval(shape), argv);
    } else {
      void* argv[] = {&qkv_ptr, &cs_ptr, &pos_ptr, &tokens, &hq, &hkv, &d, &rot, &maxpos};
      device->launch(*kernel, c.launch.eval(shape), argv);
    }
    std::vector<std::uint16_t> got(n);
    device->download(got.data(), d_qkv.get(), n * 2);
    int wrong = 0, touched = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!changed[i]) {
        touched += got[i] != qkv[i];
        continue;
      }
      wrong += std::fabs(bf16_to_float(got[i]) - expected[i]) > 1e-3 + std::fabs(expected[i]) / 64;
    }
    CHECK(wrong == 0);
    CHECK(touched == 0);
  }
}

}  // namespace

TEST_CASE("rope: every variant, in place on vLLM's qkv with its cos_sin cache and int64 positions (Llama-3.1-8B heads)") {
  check_family("rope", {5, 32, 8, 128, 128, 128, 20000, 500000.0}, 0.f);
}

TEST_CASE("rope: a partial rotary leaves the dims from ROT on untouched") {
  check_family("rope", {3, 4, 2, 64, 64, 16, 9000, 10000.0}, 0.f);
}

TEST_CASE("qk_norm_rope: every variant on vLLM's qkv, Qwen3-8B heads") {
  check_family("qk_norm_rope", {5, 32, 8, 128, 128, 128, 20000, 1000000.0}, 0.f);
}

TEST_CASE("qk_norm_rope: Qwen3-Next's gated q heads (QH = 2*D), partial rotary and zero-centred weights") {
  check_family("qk_norm_rope", {3, 16, 2, 256, 512, 64, 20000, 10000000.0}, 1.f);
}
