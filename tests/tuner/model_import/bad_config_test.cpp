// Configs the importer refuses: bad input naming the file and the field, and a --tp that does not
// divide a dim naming the dim. Configs it reads but cannot tune in full: the ops listed with why.
#include "import_support.hpp"

#include "core/input_error.hpp"

using namespace hone;
using namespace hone::test;

TEST_CASE("model import: malformed JSON, a missing field, a wrong type and an unknown architecture are refused") {
  const TempConfig broken("broken", std::string("{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 40"));
  CHECK_THROWS_WITH_AS(import_file(broken.file, 1, todays_families()), doctest::Contains("config.json: is not valid JSON"), InputError);

  auto cfg = read_config("llama-3.1-8b");
  cfg.erase("hidden_size");
  const TempConfig missing("missing", cfg);
  CHECK_THROWS_WITH_AS(import_file(missing.file, 1, todays_families()),
                       doctest::Contains((missing.file.string() + ": 'hidden_size' is missing, and the importer needs it").c_str()), InputError);

  cfg = read_config("qwen3-next-80b-a3b");
  cfg.erase("linear_num_value_heads");
  const TempConfig next("missing-next", cfg);
  CHECK_THROWS_WITH_AS(import_file(next.file, 1, todays_families()), doctest::Contains("'linear_num_value_heads' is missing"), InputError);

  cfg = read_config("qwen3-30b-a3b");
  cfg.erase("norm_topk_prob");
  const TempConfig topk("missing-topk", cfg);
  CHECK_THROWS_WITH_AS(import_file(topk.file, 1, todays_families()), doctest::Contains("'norm_topk_prob' is missing"), InputError);

  cfg = read_config("llama-3.1-8b");
  cfg["num_attention_heads"] = "32";
  const TempConfig typed("typed", cfg);
  CHECK_THROWS_WITH_AS(import_file(typed.file, 1, todays_families()),
                       doctest::Contains("'num_attention_heads' must be an integer, not \"32\""), InputError);

  cfg = read_config("llama-3.1-8b");
  cfg["architectures"] = {"GPT2LMHeadModel"};
  const TempConfig unknown("unknown", cfg);
  CHECK_THROWS_WITH_AS(import_file(unknown.file, 1, todays_families()),
                       doctest::Contains("'architectures' names GPT2LMHeadModel, which the importer does not know"), InputError);

  cfg.erase("architectures");
  const TempConfig none("no-arch", cfg);
  CHECK_THROWS_WITH_AS(import_file(none.file, 1, todays_families()), doctest::Contains("'architectures' is missing"), InputError);

  cfg = read_config("qwen3-8b-awq");
  cfg["quantization_config"].erase("group_size");
  const TempConfig group("no-group", cfg);
  CHECK_THROWS_WITH_AS(import_file(group.file, 1, todays_families()),
                       doctest::Contains("'quantization_config.group_size' is missing"), InputError);

  const TempConfig empty_dir("empty-dir", std::string("{}"), "README.md");
  CHECK_THROWS_WITH_AS(import_file(empty_dir.dir, 1, todays_families()), doctest::Contains("is a folder without a config.json"), InputError);
}

TEST_CASE("model import: a --tp that does not divide the model is refused naming the dim") {
  CHECK_THROWS_WITH_AS(import_config("qwen2.5-7b-instruct", 8, todays_families()),
                       doctest::Contains("--tp 8 does not divide num_attention_heads = 28"), InputError);
  CHECK_THROWS_WITH_AS(import_config("llama-3.1-8b", 3, todays_families()),
                       doctest::Contains("--tp 3 does not divide num_attention_heads = 32"), InputError);
  // 8 kv heads on 16 GPUs replicate; on 12 GPUs they cannot.
  auto cfg = read_config("llama-3.1-8b");
  cfg["num_attention_heads"] = 48;
  cfg["head_dim"] = 128;
  const TempConfig kv("kv", cfg);
  CHECK_THROWS_WITH_AS(import_file(kv.file, 12, todays_families()),
                       doctest::Contains("--tp 12 is not a multiple of num_key_value_heads = 8"), InputError);
  CHECK(import_config("llama-3.1-8b", 16, todays_families()).dim("attention", "HKV") == 1);
  // Qwen3-Next's DeltaNet heads are split too: 16 key heads over 32 GPUs cannot be.
  CHECK_THROWS_WITH_AS(import_config("qwen3-next-80b-a3b", 32, todays_families()),
                       doctest::Contains("--tp 32 does not divide linear_num_key_heads = 16"), InputError);
  // The experts' intermediate dim: Qwen3-30B-A3B's 768 over 512 GPUs.
  auto moe = read_config("qwen3-30b-a3b");
  moe["num_attention_heads"] = 512;
  moe["num_key_value_heads"] = 512;
  const TempConfig wide("wide", moe);
  CHECK_THROWS_WITH_AS(import_file(wide.file, 512, todays_families()),
                       doctest::Contains("--tp 512 does not divide moe_intermediate_size = 768"), InputError);
  CHECK_THROWS_WITH_AS(import_config("qwen3-30b-a3b", 0, todays_families()), doctest::Contains("--tp must be at least 1"), InputError);
}

TEST_CASE("model import: what the families do not cover is listed with the reason, never dropped") {
  auto cfg = read_config("llama-3.1-8b");
  cfg["hidden_act"] = "gelu_pytorch_tanh";
  cfg["attention_bias"] = true;
  const TempConfig t("gelu", cfg);
  const Imported m = import_file(t.file, 1, todays_families());
  CHECK(m.family("mlp_act") == "gelu_pytorch_tanh_mul");
  CHECK(m.entry("mlp_act")["reason"].get<std::string>().find("hidden_act 'gelu_pytorch_tanh'") != std::string::npos);
  CHECK(m.family("qkv_proj") == "gemv_bias");
  CHECK(m.family("o_proj") == "gemv_bias");
  CHECK(m.tuned("gate_up_proj"));
  // Every op of the step is somewhere: tuned, or listed with a reason.
  for (const auto& e : m.doc["not_tuned"]) {
    CHECK(e.contains("family_needed"));
    CHECK_FALSE(e["reason"].get<std::string>().empty());
  }
}

TEST_CASE("model import: a family whose spec disagrees with the importer is listed as not tuned, saying so") {
  FamilyCatalog f = design_families();
  f["rope"].symbols = {"tokens", "HQ", "HKV", "D", "ROT"};  // a spec without MAXPOS
  const Imported m = import_config("llama-3.1-8b", 1, f);
  CHECK_FALSE(m.tuned("rope"));
  const auto& e = m.entry("rope");
  CHECK(e["op"] == "rope");
  CHECK(e["reason"].get<std::string>().find("the importer gives symbols its spec lacks (MAXPOS)") != std::string::npos);
  f = design_families();
  f["attention_decode"].dynamic = {"batch"};  // MAXP made static: an expression of context cannot be given
  CHECK(import_config("llama-3.1-8b", 1, f).entry("attention")["reason"].get<std::string>().find("static") != std::string::npos);
}
