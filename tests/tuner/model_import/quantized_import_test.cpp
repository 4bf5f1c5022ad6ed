// Quantized checkpoints: quantization_config choosing gemv_fp8 (block scales from the config) or
// gemv_w4 (the group size), the layers engines keep in bf16, and schemes no family takes.
#include "import_support.hpp"

#include "core/input_error.hpp"

using namespace hone;
using namespace hone::test;

TEST_CASE("model import: FP8 per-channel Llama-3.1-8B: gemv_fp8 with BN = 1, BK = K, and lm_head stays bf16") {
  const Imported m = import_config("llama-3.1-8b-fp8", 1, design_families());
  for (const char* l : {"qkv_proj", "o_proj", "gate_up_proj", "down_proj"}) {
    CAPTURE(l);
    CHECK(m.family(l) == "gemv_fp8");
    CHECK(m.tuned(l));
    CHECK(m.dim(l, "BN") == 1);
    CHECK(m.dim(l, "BK") == m.dim(l, "K"));
  }
  CHECK(m.dim("qkv_proj", "N") == 6144);
  CHECK(m.dim("down_proj", "K") == 14336);
  CHECK(m.family("lm_head") == "gemv");  // "ignore": ["lm_head"]
  CHECK(m.dim("lm_head", "N") == 128256);
  bool activations_noted = false;
  for (const auto& n : m.doc["notes"]) activations_noted |= n.get<std::string>().find("weight-only") != std::string::npos;
  CHECK(activations_noted);

  const Imported tp2 = import_config("llama-3.1-8b-fp8", 2, design_families());
  CHECK(tp2.dim("down_proj", "K") == 7168);
  CHECK(tp2.dim("down_proj", "BK") == 7168);  // the K of this GPU's shard
  CHECK(tp2.dim("o_proj", "BK") == 2048);

  // With the first four families only, gemv_fp8 layers are listed with their dims, not dropped.
  const Imported today = import_config("llama-3.1-8b-fp8", 1, todays_families());
  CHECK_FALSE(today.tuned("qkv_proj"));
  CHECK(today.family("qkv_proj") == "gemv_fp8");
  CHECK(today.dim("qkv_proj", "BN") == 1);
  CHECK(today.tuned("lm_head"));
}

TEST_CASE("model import: Qwen3-8B-FP8 takes Qwen's 128x128 blocks from weight_block_size") {
  const Imported m = import_config("qwen3-8b-fp8", 1, design_families());
  for (const char* l : {"qkv_proj", "o_proj", "gate_up_proj", "down_proj"}) {
    CAPTURE(l);
    CHECK(m.family(l) == "gemv_fp8");
    CHECK(m.dim(l, "BN") == 128);
    CHECK(m.dim(l, "BK") == 128);
  }
  CHECK(m.dim("gate_up_proj", "N") == 24576);
  CHECK(m.family("lm_head") == "gemv");
  const Imported tp2 = import_config("qwen3-8b-fp8", 2, design_families());
  CHECK(tp2.dim("down_proj", "K") == 6144);
  CHECK(tp2.dim("down_proj", "BK") == 128);
}

TEST_CASE("model import: the layers a checkpoint leaves in bf16 stay gemv, named by whole module components or a regex") {
  auto cfg = read_config("qwen3-8b-fp8");
  cfg["quantization_config"]["modules_to_not_convert"] = {"model.layers.0.mlp.down_proj", "mlp.gate"};
  const TempConfig t("fp8-ignore", cfg);
  const Imported m = import_file(t.file, 1, design_families());
  CHECK(m.family("down_proj") == "gemv");          // every layer's role, whatever index the entry names
  CHECK(m.family("gate_up_proj") == "gemv_fp8");   // "mlp.gate" is a router's name, not gate_proj's
  CHECK(m.family("qkv_proj") == "gemv_fp8");

  auto ct = read_config("llama-3.1-8b-fp8");
  ct["quantization_config"]["ignore"] = {"lm_head", "re:.*self_attn\\.o_proj$"};
  const TempConfig r("ct-ignore", ct);
  const Imported c = import_file(r.file, 1, design_families());
  CHECK(c.family("o_proj") == "gemv");
  CHECK(c.family("qkv_proj") == "gemv_fp8");
}

TEST_CASE("model import: a shard that cuts an FP8 block is bad input naming the layer (Qwen3-30B-A3B-FP8 at --tp 4)") {
  auto cfg = read_config("qwen3-30b-a3b");
  cfg["quantization_config"] = {{"activation_scheme", "dynamic"}, {"fmt", "e4m3"}, {"quant_method", "fp8"}, {"weight_block_size", {128, 128}}};
  const TempConfig t("fp8-moe", cfg);
  // 768 / 2 = 384 = 3 blocks per GPU: fine; 768 / 4 = 192 is a block and a half.
  const Imported tp2 = import_file(t.file, 2, design_families());
  CHECK(tp2.family("moe.expert_gate_up_proj") == "gemv_fp8");
  CHECK(tp2.family("moe.gate_up") == "moe_gate_up for FP8 weights in 128x128 blocks (weight_block_size)");
  CHECK(tp2.family("moe.router") == "gemv");  // routers stay bf16
  CHECK_THROWS_WITH_AS(import_file(t.file, 4, design_families()),
                       doctest::Contains("--tp 4: moe.expert_gate_up_proj has an output shard = 192 per GPU, not a multiple of the FP8 "
                                         "scale block's rows"),
                       InputError);
}

TEST_CASE("model import: GPTQ INT4 Llama-3.1-8B: gemv_w4 with G = 128, and the act-order gathers listed") {
  const Imported m = import_config("llama-3.1-8b-gptq-int4", 1, design_families());
  for (const char* l : {"qkv_proj", "o_proj", "gate_up_proj", "down_proj"}) {
    CAPTURE(l);
    CHECK(m.family(l) == "gemv_w4");
    CHECK(m.dim(l, "G") == 128);
  }
  CHECK(m.dim("down_proj", "K") == 14336);
  CHECK(m.family("lm_head") == "gemv");  // GPTQ's lm_head flag is absent: false
  CHECK(m.family("act_order_gather.K4096") == "act_order_gather");
  CHECK(m.entry("act_order_gather.K4096")["reason"].get<std::string>().find("qkv_proj, o_proj, gate_up_proj") != std::string::npos);
  CHECK(m.dim("act_order_gather.K14336", "K") == 14336);
  bool dtype_noted = false;
  for (const auto& n : m.doc["notes"]) dtype_noted |= n.get<std::string>().find("torch_dtype is float16") != std::string::npos;
  CHECK(dtype_noted);
  const Imported tp2 = import_config("llama-3.1-8b-gptq-int4", 2, design_families());
  CHECK(tp2.dim("down_proj", "K") == 7168);
  CHECK(tp2.dim("down_proj", "G") == 128);
}

TEST_CASE("model import: AWQ INT4 Qwen3-8B: gemv_w4 with G = 128 and zero points") {
  const Imported m = import_config("qwen3-8b-awq", 1, design_families());
  CHECK(m.family("qkv_proj") == "gemv_w4");
  CHECK(m.dim("qkv_proj", "G") == 128);
  CHECK(m.dim("qkv_proj", "N") == 6144);
  CHECK(m.entry("qkv_proj")["note"].get<std::string>().find("AWQ INT4 weights, groups of 128, with zero points") != std::string::npos);
  CHECK_FALSE(m.listed("act_order_gather.K4096"));
  CHECK(m.family("lm_head") == "gemv");
  // A K that is not whole groups is bad input naming the layer.
  auto cfg = read_config("qwen3-8b-awq");
  cfg["intermediate_size"] = 12288 + 64;
  const TempConfig t("awq-group", cfg);
  CHECK_THROWS_WITH_AS(import_file(t.file, 1, design_families()),
                       doctest::Contains("down_proj has K = 12352 per GPU, not a multiple of the quantization group (group_size) 128"),
                       InputError);
}

TEST_CASE("model import: compressed-tensors W4A16 and a folder's quantize_config.json are read too") {
  auto cfg = read_config("llama-3.1-8b");
  cfg["quantization_config"] = {
      {"quant_method", "compressed-tensors"},
      {"format", "pack-quantized"},
      {"ignore", {"lm_head"}},
      {"config_groups",
       {{"group_0",
         {{"targets", {"Linear"}},
          {"input_activations", nullptr},
          {"weights", {{"num_bits", 4}, {"type", "int"}, {"strategy", "group"}, {"group_size", 64}, {"symmetric", true}, {"actorder", nullptr}}}}}}}};
  const TempConfig ct("w4a16", cfg);
  const Imported m = import_file(ct.file, 1, design_families());
  CHECK(m.family("gate_up_proj") == "gemv_w4");
  CHECK(m.dim("gate_up_proj", "G") == 64);

  // An older GPTQ folder: the scheme in quantize_config.json beside config.json.
  const TempConfig folder("side-file", read_config("llama-3.1-8b"));
  std::ofstream(folder.dir / "quantize_config.json") << R"({"bits": 4, "group_size": -1, "desc_act": false, "sym": true, "quant_method": "gptq"})";
  const Imported side = import_file(folder.dir, 1, design_families());
  CHECK(side.family("o_proj") == "gemv_w4");
  CHECK(side.dim("o_proj", "G") == 4096);  // group_size -1: one group per row
}

TEST_CASE("model import: a quantization no family takes lists its layers as not tuned, with the reason") {
  auto cfg = read_config("llama-3.1-8b");
  cfg["quantization_config"] = {{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}};
  const TempConfig t("bnb", cfg);
  const Imported m = import_file(t.file, 1, design_families());
  CHECK_FALSE(m.tuned("qkv_proj"));
  CHECK(m.family("qkv_proj") == "gemv for bitsandbytes weights");
  CHECK(m.entry("qkv_proj")["reason"].get<std::string>().find("quant_method 'bitsandbytes'") != std::string::npos);
  CHECK(m.dim("qkv_proj", "N") == 6144);
  CHECK(m.tuned("lm_head"));  // engines keep it in bf16
  CHECK(m.tuned("mlp_act"));

  auto w8 = read_config("llama-3.1-8b");
  w8["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 8}, {"group_size", 128}};
  const TempConfig t8("gptq8", w8);
  CHECK(import_file(t8.file, 1, design_families()).family("down_proj") == "gemv_w8");
}
