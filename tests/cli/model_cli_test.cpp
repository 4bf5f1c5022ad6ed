// `hone model import` from the command line: the file it writes, its refusals (exit 2, the file
// and the field named, nothing written), and `hone tune --device none` on what it wrote.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace {

using Run = hone::test::CommandResult;

Run hone_cmd(const std::string& args) { return hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone " + args); }

std::filesystem::path scratch(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("hone-model-cli-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::string config(const std::string& stem) { return std::string(HONE_SOURCE_DIR) + "/shapes/configs/" + stem + ".json"; }

}  // namespace

TEST_CASE("cli: model import writes a shapes file that hone tune takes") {
  const auto d = scratch("write");
  const auto out = d / "qwen3-8b-tp2.json";
  Run r = hone_cmd("model import " + config("qwen3-8b") + " --tp 2 --buckets 1,8 --out " + out.string());
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("wrote " + out.string() + ": ") != std::string::npos);
  CHECK(r.output.find("listed as not tuned") != std::string::npos);
  auto j = nlohmann::json::parse(std::ifstream(out));
  CHECK(j["model"] == "qwen3-8b-tp2");
  CHECK(j["dynamic"]["tokens"]["buckets"] == nlohmann::json({1, 8}));
  bool found = false;
  for (const auto& op : j["ops"])
    if (op["name"] == "qkv_proj") found = op["dims"]["N"] == 3072;
  CHECK(found);

  // Without --out the file goes to stdout.
  Run s = hone::test::run_command("{ " + std::string(HONE_BINARY_DIR) + "/hone model import " + config("mixtral-8x7b-v0.1") +
                                  " 2>/dev/null; } > " + (d / "stdout.json").string());
  REQUIRE(s.code == 0);
  CHECK(nlohmann::json::parse(std::ifstream(d / "stdout.json"))["import"]["architecture"] == "MixtralForCausalLM");

  Run t = hone_cmd("tune --model " + out.string() + " --device none --ops silu_mul --budget 1 --db " + (d / "t.db").string());
  CHECK_MESSAGE(t.code == 0, t.output);
  CHECK(t.output.find("static checks only") != std::string::npos);
  CHECK(t.output.find("not tuned: ") != std::string::npos);
  CHECK(t.output.find("embed_tokens (needs embedding)") != std::string::npos);
  std::filesystem::remove_all(d);
}

TEST_CASE("cli: model import refuses bad input with exit 2 and writes nothing") {
  const auto d = scratch("bad");
  const auto out = d / "out.json";
  std::ofstream(d / "broken.json") << "{\"architectures\": [";
  Run r = hone_cmd("model import " + (d / "broken.json").string() + " --out " + out.string());
  CHECK(r.code == 2);
  CHECK(r.output.find("broken.json: is not valid JSON") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));

  r = hone_cmd("model import " + config("qwen2.5-7b-instruct") + " --tp 8 --out " + out.string());
  CHECK(r.code == 2);
  CHECK(r.output.find("qwen2.5-7b-instruct.json: --tp 8 does not divide num_attention_heads = 28") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));

  std::ofstream(d / "gpt2.json") << R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 768})";
  r = hone_cmd("model import " + (d / "gpt2.json").string() + " --out " + out.string());
  CHECK(r.code == 2);
  CHECK(r.output.find("gpt2.json: 'architectures' names GPT2LMHeadModel, which the importer does not know") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));

  r = hone_cmd("model import " + config("qwen3-8b") + " --buckets 4,2 --out " + out.string());
  CHECK(r.code == 2);
  CHECK(r.output.find("--buckets must be positive and increasing") != std::string::npos);
  r = hone_cmd("model import " + config("qwen3-8b") + " --buckets 1,x --out " + out.string());
  CHECK(r.code == 2);
  CHECK_FALSE(std::filesystem::exists(out));
  CHECK(hone_cmd("model import").code == 2);
  CHECK(hone_cmd("model").code == 2);
  std::filesystem::remove_all(d);
}
