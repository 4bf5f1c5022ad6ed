// Mixture-of-experts and hybrid decoders imported from their published configs, every dim worked
// out by hand: Mixtral-8x7B, Qwen3-30B-A3B (also at --tp 4), Qwen3-Next-80B-A3B.
#include <cmath>

#include "import_support.hpp"

using namespace hone;
using namespace hone::test;

TEST_CASE("model import: Mixtral-8x7B, 8 experts of 14336, top 2, Llama's attention") {
  const Imported m = import_config("mixtral-8x7b-v0.1", 1, todays_families());
  CHECK(m.dim("qkv_proj", "N") == 6144);
  CHECK(m.dim("o_proj", "K") == 4096);
  CHECK(m.dim("moe.router", "N") == 8);
  CHECK(m.dim("moe.router", "K") == 4096);
  CHECK(m.dim("moe.topk", "E") == 8);
  CHECK(m.dim("moe.topk", "TOPK") == 2);
  CHECK(m.dim("moe.topk", "renormalize") == 1);
  // Without the MoE families, one expert as dense layers, and the fused ones listed.
  CHECK(m.dim("moe.expert_gate_up_proj", "N") == 2 * 14336);
  CHECK(m.dim("moe.expert_act", "inter") == 14336);
  CHECK(m.dim("moe.expert_down_proj", "K") == 14336);
  CHECK(m.family("moe.gate_up") == "moe_gate_up");
  CHECK(m.dim("moe.gate_up", "N") == 14336);
  CHECK(m.dim("lm_head", "N") == 32000);
  CHECK_FALSE(m.listed("gate_up_proj"));  // no dense MLP
  CHECK_FALSE(m.listed("q_norm"));

  const Imported tp2 = import_config("mixtral-8x7b-v0.1", 2, design_families());
  CHECK(tp2.dim("qkv_proj", "N") == 3072);
  CHECK(tp2.dim("moe.router", "N") == 8);  // replicated
  CHECK(tp2.family("moe.gate_up") == "moe_gate_up");
  CHECK(tp2.tuned("moe.gate_up"));
  CHECK(tp2.dim("moe.gate_up", "E") == 8);  // every GPU holds every expert's slice
  CHECK(tp2.dim("moe.gate_up", "N") == 7168);
  CHECK(tp2.dim("moe.gate_up", "K") == 4096);
  CHECK(tp2.dim("moe.down", "N") == 7168);
  CHECK_FALSE(tp2.listed("moe.expert_gate_up_proj"));
}

TEST_CASE("model import: Qwen3-30B-A3B, 128 experts of 768, top 8, 32 q / 4 kv heads of 128, at --tp 1, 2 and 4") {
  const Imported m = import_config("qwen3-30b-a3b", 1, todays_families());
  CHECK(m.doc["import"]["architecture"] == "Qwen3MoeForCausalLM");
  CHECK(m.dim("qkv_proj", "N") == 32 * 128 + 2 * 4 * 128);  // 5120: q is wider than hidden (2048)
  CHECK(m.dim("qkv_proj", "K") == 2048);
  CHECK(m.dim("o_proj", "K") == 4096);
  CHECK(m.dim("o_proj", "N") == 2048);
  CHECK(m.expr("q_norm", "tokens") == "tokens*32");
  CHECK(m.expr("k_norm", "tokens") == "tokens*4");
  CHECK(m.dim("moe.router", "N") == 128);
  CHECK(m.dim("moe.topk", "TOPK") == 8);
  CHECK(m.dim("moe.expert_gate_up_proj", "N") == 2 * 768);
  CHECK(m.dim("moe.expert_down_proj", "K") == 768);
  CHECK(m.dim("lm_head", "N") == 151936);
  CHECK_FALSE(m.listed("gate_up_proj"));  // mlp_only_layers is empty, decoder_sparse_step 1

  const Imported tp2 = import_config("qwen3-30b-a3b", 2, todays_families());
  CHECK(tp2.dim("qkv_proj", "N") == 16 * 128 + 2 * 2 * 128);
  CHECK(tp2.dim("o_proj", "K") == 2048);
  CHECK(tp2.dim("moe.expert_gate_up_proj", "N") == 2 * 384);
  CHECK(tp2.dim("moe.expert_down_proj", "K") == 384);
  CHECK(tp2.dim("lm_head", "N") == 75968);

  const Imported tp4 = import_config("qwen3-30b-a3b", 4, design_families());
  CHECK(tp4.dim("qk_norm_rope", "HQ") == 8);
  CHECK(tp4.dim("qk_norm_rope", "HKV") == 1);
  CHECK(tp4.dim("qkv_proj", "N") == 8 * 128 + 2 * 1 * 128);  // 1280
  CHECK(tp4.dim("o_proj", "K") == 1024);
  CHECK(tp4.dim("moe.router", "N") == 128);
  CHECK(tp4.dim("moe.topk", "E") == 128);
  CHECK(tp4.dim("moe.gate_up", "E") == 128);
  CHECK(tp4.dim("moe.gate_up", "N") == 192);
  CHECK(tp4.dim("moe.down", "N") == 192);
  CHECK(tp4.dim("moe.down", "K") == 2048);
  CHECK(tp4.dim("lm_head", "N") == 37984);
  CHECK(tp4.dim("attention", "HKV") == 1);
}

TEST_CASE("model import: Qwen3-30B-A3B with dense layers (mlp_only_layers) lists the dense MLP too") {
  auto cfg = read_config("qwen3-30b-a3b");
  cfg["mlp_only_layers"] = {0, 47};
  const TempConfig t("dense-layers", cfg);
  const Imported m = import_file(t.dir, 1, todays_families());
  CHECK(m.doc["model"] == t.dir.filename().string());
  CHECK(m.dim("gate_up_proj", "N") == 2 * 6144);
  CHECK(m.entry("gate_up_proj")["note"].get<std::string>().find("2 of 48 layers") != std::string::npos);
  CHECK(m.entry("moe.router")["note"].get<std::string>().find("46 of 48 layers") != std::string::npos);
}

TEST_CASE("model import: Qwen3-Next-80B-A3B with today's families, as the hand-written file had it") {
  const Imported m = import_config("qwen3-next-80b-a3b", 1, todays_families());
  // full attention (12 layers): q carries its gate, 16 q / 2 kv heads of 256
  CHECK(m.dim("full_attn.qkv_proj", "N") == 16 * 256 * 2 + 2 * 2 * 256);  // 9216
  CHECK(m.dim("full_attn.qkv_proj", "K") == 2048);
  CHECK(m.expr("full_attn.q_norm", "tokens") == "tokens*16");
  CHECK(m.dim("full_attn.q_norm", "hidden") == 256);
  CHECK(m.expr("full_attn.k_norm", "tokens") == "tokens*2");
  CHECK(m.dim("full_attn.o_proj", "K") == 16 * 256);
  CHECK(m.dim("full_attn.attention", "HQ") == 16);
  CHECK(m.dim("full_attn.attention", "HKV") == 2);
  CHECK(m.dim("full_attn.rope", "ROT") == 64);  // partial_rotary_factor 0.25 of 256
  CHECK(m.family("full_attn.attn_output_gate") == "sigmoid_gate_mul");
  // Gated DeltaNet (36 layers): 16 key heads, 32 value heads of 128
  CHECK(m.dim("linear_attn.in_proj_qkvz", "N") == 2 * 16 * 128 + 2 * 32 * 128);  // 12288
  CHECK(m.dim("linear_attn.in_proj_ba", "N") == 64);
  CHECK(m.family("linear_attn.recurrent_step") == "gdn_decode");
  CHECK(m.dim("linear_attn.recurrent_step", "H") == 16);
  CHECK(m.dim("linear_attn.recurrent_step", "HV") == 32);
  CHECK(m.entry("linear_attn.recurrent_step")["scalars"]["scale"] == doctest::Approx(1.0 / std::sqrt(128.0)));
  CHECK(m.family("linear_attn.gating") == "gdn_gated_decode");
  CHECK(m.family("linear_attn.conv1d") == "causal_conv1d_update");
  CHECK(m.dim("linear_attn.conv1d", "D") == 2 * 16 * 128 + 32 * 128);  // q, k, v: 8192
  CHECK(m.dim("linear_attn.conv1d", "W") == 4);
  CHECK(m.family("linear_attn.norm") == "rmsnorm_gated");
  CHECK(m.dim("linear_attn.out_proj", "K") == 32 * 128);
  // MoE (every layer): 512 experts of 512, top 10, a shared expert of 512 with its gate
  CHECK(m.dim("moe.router", "N") == 512);
  CHECK(m.dim("moe.topk", "E") == 512);
  CHECK(m.dim("moe.topk", "TOPK") == 10);
  CHECK(m.dim("moe.expert_gate_up_proj", "N") == 1024);
  CHECK(m.dim("moe.expert_down_proj", "K") == 512);
  CHECK(m.dim("moe.shared_expert_gate_up_proj", "N") == 1024);
  CHECK(m.dim("moe.shared_expert_down_proj", "K") == 512);
  CHECK(m.dim("moe.shared_expert_gate", "N") == 1);
  CHECK(m.dim("lm_head", "N") == 151936);
  // Zero-centred norms: rmsnorm with the note to pass 1 + w.
  CHECK(m.entry("input_layernorm")["note"].get<std::string>().find("1 + w") != std::string::npos);
  CHECK(m.entry("linear_attn.recurrent_step")["note"].get<std::string>().find("36 of 48 layers") != std::string::npos);
  CHECK(m.entry("full_attn.o_proj")["note"].get<std::string>().find("12 of 48 layers") != std::string::npos);
  CHECK_FALSE(m.listed("gate_up_proj"));  // intermediate_size is unused: no dense layer
}

TEST_CASE("model import: Qwen3-Next-80B-A3B at --tp 2 and once DESIGN's families exist") {
  const Imported tp2 = import_config("qwen3-next-80b-a3b", 2, todays_families());
  CHECK(tp2.dim("full_attn.qkv_proj", "N") == 8 * 256 * 2 + 2 * 1 * 256);  // 2 kv heads over 2 GPUs
  CHECK(tp2.expr("full_attn.q_norm", "tokens") == "tokens*8");
  CHECK(tp2.expr("full_attn.k_norm", "tokens") == "tokens");
  CHECK(tp2.dim("full_attn.o_proj", "K") == 2048);
  CHECK(tp2.dim("linear_attn.in_proj_qkvz", "N") == 2 * 8 * 128 + 2 * 16 * 128);
  CHECK(tp2.dim("linear_attn.in_proj_ba", "N") == 32);
  CHECK(tp2.dim("linear_attn.recurrent_step", "H") == 8);
  CHECK(tp2.dim("linear_attn.recurrent_step", "HV") == 16);
  CHECK(tp2.dim("linear_attn.conv1d", "D") == 4096);
  CHECK(tp2.dim("linear_attn.out_proj", "K") == 2048);
  CHECK(tp2.dim("moe.router", "N") == 512);
  CHECK(tp2.dim("moe.expert_gate_up_proj", "N") == 512);
  CHECK(tp2.dim("moe.shared_expert_gate_up_proj", "N") == 512);
  CHECK(tp2.dim("moe.shared_expert_down_proj", "K") == 256);
  CHECK(tp2.dim("moe.shared_expert_gate", "N") == 1);
  CHECK(tp2.dim("lm_head", "N") == 75968);

  const Imported all = import_config("qwen3-next-80b-a3b", 1, design_families());
  const auto& q = all.entry("full_attn.qk_norm_rope");
  CHECK(q["op"] == "qk_norm_rope");
  CHECK(q["dims"]["QH"] == 512);  // each q head is followed by its gate
  CHECK(q["dims"]["ROT"] == 64);
  CHECK(q["dims"]["MAXPOS"] == 262144);
  CHECK(q["scalars"]["w_offset"] == 1);
  CHECK(all.dim("full_attn.attention", "q_stride") == 16 * 256);
  CHECK(all.dim("full_attn.attention", "page_stride") == 16 * 2 * 256);
  CHECK(all.entry("input_layernorm")["scalars"]["w_offset"] == 1);
  CHECK(all.family("linear_attn.recurrent_step") == "gdn_gated_decode");
  CHECK(all.dim("linear_attn.recurrent_step", "SLOTS") == 64);
  CHECK_FALSE(all.listed("linear_attn.gating"));
  CHECK(all.tuned("linear_attn.conv1d"));
  CHECK(all.expr("linear_attn.norm", "rows") == "tokens*32");
  CHECK(all.dim("linear_attn.norm", "D") == 128);
  CHECK(all.tuned("moe.gate_up"));
  CHECK(all.dim("moe.gate_up", "N") == 512);
  CHECK(all.tuned("moe.topk"));
  CHECK_FALSE(all.listed("full_attn.rope"));  // qk_norm_rope does the rotary
  CHECK(all.tuned("moe.shared_expert_gate_up_proj"));  // the shared expert stays dense (DESIGN)

  const Imported tp4 = import_config("qwen3-next-80b-a3b", 4, todays_families());
  CHECK(tp4.dim("full_attn.attention", "HKV") == 1);  // 2 kv heads, each on 2 of the 4 GPUs
  CHECK(tp4.entry("full_attn.qkv_proj")["note"].get<std::string>().find("each kv head on 2 GPUs") != std::string::npos);
}

TEST_CASE("model import: a router that does not renormalise (norm_topk_prob false) gets its top-k task at renormalize 0") {
  auto cfg = read_config("qwen3-30b-a3b");
  cfg["norm_topk_prob"] = false;
  const TempConfig plain("plain-topk", cfg);
  const Imported m = import_file(plain.file, 1, installed_families());
  CHECK(m.tuned("moe.topk"));
  CHECK(m.dim("moe.topk", "renormalize") == 0);
  CHECK(m.dim("moe.topk", "TOPK") == 8);
}
