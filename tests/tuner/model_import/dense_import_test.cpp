// Dense decoders imported from their published configs, every dim worked out by hand from the
// config: Llama-3.1-8B, Mistral-7B, Qwen2.5-7B and Qwen3-8B, at --tp 1 and --tp 2.
#include <algorithm>
#include <cmath>

#include "import_support.hpp"

using namespace hone;
using namespace hone::test;

TEST_CASE("model import: Llama-3.1-8B, hidden 4096, 32 q / 8 kv heads of 128, intermediate 14336, vocab 128256") {
  const Imported m = import_config("llama-3.1-8b", 1, todays_families());
  CHECK(m.doc["model"] == "llama-3.1-8b");
  CHECK(m.doc["import"]["architecture"] == "LlamaForCausalLM");
  CHECK(m.dim("qkv_proj", "N") == 32 * 128 + 2 * 8 * 128);  // 6144
  CHECK(m.dim("qkv_proj", "K") == 4096);
  CHECK(m.dim("o_proj", "N") == 4096);
  CHECK(m.dim("o_proj", "K") == 32 * 128);
  CHECK(m.dim("gate_up_proj", "N") == 2 * 14336);
  CHECK(m.dim("mlp_act", "inter") == 14336);
  CHECK(m.dim("down_proj", "K") == 14336);
  CHECK(m.dim("down_proj", "N") == 4096);
  CHECK(m.dim("lm_head", "N") == 128256);
  CHECK(m.dim("attention", "HQ") == 32);
  CHECK(m.dim("attention", "HKV") == 8);
  CHECK(m.dim("attention", "D") == 128);
  CHECK(m.dim("input_layernorm", "hidden") == 4096);
  CHECK(m.entry("input_layernorm")["scalars"]["eps"] == doctest::Approx(1e-5));
  // Today's families: the linear layers, norms and SwiGLU are tuned; rope, attention, the residual
  // add and the embedding are listed with the family they need.
  for (const char* op : {"qkv_proj", "o_proj", "gate_up_proj", "mlp_act", "down_proj", "lm_head", "input_layernorm",
                         "post_attention_layernorm", "final_norm"})
    CHECK_MESSAGE(m.tuned(op), op);
  CHECK(m.family("rope") == "rope");
  CHECK(m.dim("rope", "ROT") == 128);
  CHECK(m.dim("rope", "MAXPOS") == 131072);
  CHECK(m.family("attention") == "attention_decode");
  CHECK(m.family("residual_add") == "fused_add_rmsnorm");
  CHECK(m.family("embed_tokens") == "embedding");
  CHECK_FALSE(m.listed("all_reduce"));
  CHECK_FALSE(m.doc["dynamic"].contains("context"));  // no tuned op reads it yet
}

TEST_CASE("model import: Llama-3.1-8B at --tp 2 splits heads, gate_up's outputs, down's K and the vocabulary") {
  const Imported m = import_config("llama-3.1-8b", 2, todays_families());
  CHECK(m.doc["model"] == "llama-3.1-8b-tp2");
  CHECK(m.doc["import"]["tp"] == 2);
  CHECK(m.dim("qkv_proj", "N") == 16 * 128 + 2 * 4 * 128);  // 3072
  CHECK(m.dim("qkv_proj", "K") == 4096);                     // column-parallel: K whole
  CHECK(m.dim("o_proj", "K") == 16 * 128);                   // row-parallel: K split
  CHECK(m.dim("o_proj", "N") == 4096);
  CHECK(m.dim("gate_up_proj", "N") == 2 * 7168);
  CHECK(m.dim("down_proj", "K") == 7168);
  CHECK(m.dim("down_proj", "N") == 4096);
  CHECK(m.dim("lm_head", "N") == 128256 / 2);
  CHECK(m.dim("attention", "HQ") == 16);
  CHECK(m.dim("attention", "HKV") == 4);
  CHECK(m.dim("input_layernorm", "hidden") == 4096);  // norms see the whole hidden state
  CHECK(m.family("all_reduce") == "all_reduce");
}

TEST_CASE("model import: Mistral-7B's sliding window keeps attention_decode out, whatever families exist") {
  for (const FamilyCatalog* f : {&todays_families(), &design_families()}) {
    const Imported m = import_config("mistral-7b-v0.1", 1, *f);
    CHECK(m.doc["import"]["architecture"] == "MistralForCausalLM");
    CHECK(m.dim("qkv_proj", "N") == 6144);  // head_dim absent: 4096 / 32 = 128
    CHECK(m.dim("gate_up_proj", "N") == 28672);
    CHECK(m.dim("down_proj", "K") == 14336);
    CHECK(m.dim("lm_head", "N") == 32000);
    CHECK_FALSE(m.tuned("attention"));
    CHECK(m.family("attention") == "attention_decode with a sliding window");
    CHECK(m.entry("attention")["reason"].get<std::string>().find("4096") != std::string::npos);
  }
  const Imported tp2 = import_config("mistral-7b-v0.1", 2, todays_families());
  CHECK(tp2.dim("qkv_proj", "N") == 3072);
  CHECK(tp2.dim("down_proj", "K") == 7168);
  CHECK(tp2.dim("lm_head", "N") == 16000);
  CHECK(tp2.dim("attention", "HKV") == 4);
}

TEST_CASE("model import: Qwen2.5-7B's biased q/k/v projection is listed as not tuned, the rest is tuned") {
  const Imported m = import_config("qwen2.5-7b-instruct", 1, todays_families());
  CHECK_FALSE(m.tuned("qkv_proj"));
  CHECK(m.family("qkv_proj") == "gemv_bias");
  CHECK(m.entry("qkv_proj")["reason"].get<std::string>().find("bias") != std::string::npos);
  CHECK(m.dim("qkv_proj", "N") == 28 * 128 + 2 * 4 * 128);  // 4608; head_dim = 3584 / 28
  CHECK(m.dim("qkv_proj", "K") == 3584);
  CHECK(m.tuned("o_proj"));  // o_proj has no bias in Qwen2
  CHECK(m.dim("o_proj", "K") == 3584);
  CHECK(m.dim("gate_up_proj", "N") == 2 * 18944);
  CHECK(m.dim("down_proj", "K") == 18944);
  CHECK(m.dim("lm_head", "N") == 152064);
  CHECK(m.dim("attention", "HQ") == 28);
  CHECK(m.dim("attention", "HKV") == 4);
  // use_sliding_window is false: the window does not apply.
  const Imported all = import_config("qwen2.5-7b-instruct", 1, design_families());
  CHECK(all.tuned("attention"));

  const Imported tp2 = import_config("qwen2.5-7b-instruct", 2, todays_families());
  CHECK(tp2.dim("qkv_proj", "N") == 14 * 128 + 2 * 2 * 128);  // 2304
  CHECK(tp2.dim("o_proj", "K") == 14 * 128);
  CHECK(tp2.dim("gate_up_proj", "N") == 18944);
  CHECK(tp2.dim("down_proj", "K") == 9472);
  CHECK(tp2.dim("lm_head", "N") == 76032);
}

TEST_CASE("model import: Qwen3-8B with today's families has per-head q/k rmsnorms, as the hand-written file had") {
  const Imported m = import_config("qwen3-8b", 1, todays_families());
  CHECK(m.dim("qkv_proj", "N") == 6144);
  CHECK(m.dim("o_proj", "K") == 4096);
  CHECK(m.dim("gate_up_proj", "N") == 24576);
  CHECK(m.dim("down_proj", "K") == 12288);
  CHECK(m.dim("lm_head", "N") == 151936);
  CHECK(m.family("q_norm") == "rmsnorm");
  CHECK(m.expr("q_norm", "tokens") == "tokens*32");
  CHECK(m.dim("q_norm", "hidden") == 128);
  CHECK(m.expr("k_norm", "tokens") == "tokens*8");
  CHECK(m.family("rope") == "qk_norm_rope");  // the rotary after the norms: fused in qk_norm_rope
  CHECK(m.dim("attention", "HQ") == 32);
  CHECK(m.dim("attention", "HKV") == 8);

  const Imported tp2 = import_config("qwen3-8b", 2, todays_families());
  CHECK(tp2.dim("qkv_proj", "N") == 16 * 128 + 2 * 4 * 128);
  CHECK(tp2.expr("q_norm", "tokens") == "tokens*16");
  CHECK(tp2.expr("k_norm", "tokens") == "tokens*4");
  CHECK(tp2.dim("gate_up_proj", "N") == 12288);
  CHECK(tp2.dim("down_proj", "K") == 6144);
  CHECK(tp2.dim("lm_head", "N") == 75968);
}

TEST_CASE("model import: Qwen3-8B once DESIGN's families exist: qk_norm_rope, fused residual norms, paged attention") {
  const Imported m = import_config("qwen3-8b", 1, design_families());
  CHECK_FALSE(m.listed("q_norm"));
  const auto& q = m.entry("qk_norm_rope");
  CHECK(q["op"] == "qk_norm_rope");
  CHECK(q["dims"] == nlohmann::json({{"tokens", "tokens"}, {"HQ", 32}, {"HKV", 8}, {"D", 128}, {"QH", 128}, {"ROT", 128}, {"MAXPOS", 40960}}));
  CHECK(q["scalars"]["eps"] == doctest::Approx(1e-6));
  CHECK(q["scalars"]["w_offset"] == 0);
  for (const char* n : {"input_layernorm", "post_attention_layernorm", "final_norm"}) CHECK(m.family(n) == "fused_add_rmsnorm");
  CHECK(m.family("first_input_layernorm") == "rmsnorm");
  CHECK_FALSE(m.listed("residual_add"));
  const auto& a = m.entry("attention");
  CHECK(a["op"] == "attention_decode");
  CHECK(a["dims"] == nlohmann::json({{"batch", "tokens"}, {"HQ", 32}, {"HKV", 8}, {"D", 128}, {"PAGE", 16}, {"MAXP", "(context+15)/16"},
                                     {"q_stride", 6144}, {"page_stride", 16 * 8 * 128}}));
  CHECK(a["scalars"]["scale"] == doctest::Approx(1.0 / std::sqrt(128.0)));
  CHECK(m.doc["dynamic"]["context"]["buckets"] == nlohmann::json({1024, 4096, 16384, 32768}));

  const Imported tp2 = import_config("qwen3-8b", 2, design_families());
  CHECK(tp2.dim("qk_norm_rope", "HQ") == 16);
  CHECK(tp2.dim("qk_norm_rope", "HKV") == 4);
  CHECK(tp2.dim("attention", "q_stride") == 3072);
  CHECK(tp2.dim("attention", "page_stride") == 16 * 4 * 128);
}

TEST_CASE("model import: Llama-3.1-8B once DESIGN's families exist uses rope, and the context buckets stop at the model's length") {
  const Imported m = import_config("llama-3.1-8b", 1, design_families());
  CHECK(m.family("rope") == "rope");
  CHECK(m.tuned("rope"));
  CHECK(m.tuned("attention"));
  // Llama's 131072 positions keep the buckets up to them and drop the one above.
  ImportOptions o;
  o.source = config_path("llama-3.1-8b");
  o.context_buckets = {2048, 131072, 262144};
  const auto j = nlohmann::json::parse(import_model(o, design_families()).text);
  CHECK(j["dynamic"]["context"]["buckets"] == nlohmann::json({2048, 131072}));
}
