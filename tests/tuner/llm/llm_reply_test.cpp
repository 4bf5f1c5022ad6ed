// What the LLM proposer accepts from a reply, and the candidates it makes of it.
#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "tuner/llm/llm_reply.hpp"

using namespace hone;

namespace {

const OpSpec& rmsnorm() {
  static const OpSpec op = load_op(templates_root(), "rmsnorm");
  return op;
}

const std::string kSource =
    "#include <cuda_bf16.h>\n"
    "extern \"C\" __global__ void rms_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,\n"
    "                                      int tokens, int hidden, float eps) {}\n";

nlohmann::json good() {
  return {{"entry", "rms_rows"}, {"source", kSource}, {"launch", {{"grid", {"tokens"}}, {"block", {"32"}}}}};
}

}  // namespace

TEST_CASE("llm reply: a bare object and one in a json fence with prose around it both parse") {
  ParsedReply bare = parse_llm_reply(good().dump(), rmsnorm());
  REQUIRE_MESSAGE(bare.kernel, bare.error);
  CHECK(bare.kernel->entry == "rms_rows");
  ParsedReply fenced = parse_llm_reply("Here is a faster kernel.\n```json\n" + good().dump(2) + "\n```\nIt uses one warp.", rmsnorm());
  REQUIRE_MESSAGE(fenced.kernel, fenced.error);
  CHECK(fenced.kernel->source == kSource);
}

TEST_CASE("llm reply: malformed or incomplete replies give no kernel and a reason to feed back") {
  struct Case {
    std::string reply, reason;
  };
  nlohmann::json wrong_entry = good();
  wrong_entry["entry"] = "rms_cols";
  nlohmann::json no_source = good();
  no_source.erase("source");
  nlohmann::json no_launch = good();
  no_launch.erase("launch");
  nlohmann::json bad_symbol = good();
  bad_symbol["launch"]["grid"] = {"rows"};
  nlohmann::json not_extern_c = good();
  not_extern_c["source"] = "__global__ void rms_rows(int) {}";
  const std::vector<Case> cases = {
      {"", "the reply is empty"},
      {"{\"entry\": \"rms_rows\", \"source\": \"#include", "not one JSON object"},
      {"[1, 2]", "JSON but not an object"},
      {no_source.dump(), "'source' is missing"},
      {wrong_entry.dump(), "names the entry 'rms_cols'"},
      {no_launch.dump(), "no 'launch' rule"},
      {bad_symbol.dump(), "reads 'rows'"},
      {not_extern_c.dump(), "must be declared extern \"C\""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.reply);
    const ParsedReply p = parse_llm_reply(c.reply, rmsnorm());
    CHECK_FALSE(p.kernel);
    CHECK_MESSAGE(p.error.find(c.reason) != std::string::npos, p.error);
  }
}

TEST_CASE("llm reply: a parameter space becomes one candidate per valid configuration, as #defines with bound launches") {
  nlohmann::json j = good();
  j["params"] = {{"THREADS", {16, 32, 64}}};
  j["constraints"] = {"THREADS <= 32"};
  j["launch"]["block"] = {"THREADS"};
  ParsedReply p = parse_llm_reply(j.dump(), rmsnorm());
  REQUIRE_MESSAGE(p.kernel, p.error);
  const LlmRendering r = render_llm_kernel(rmsnorm(), *p.kernel, {{"tokens", 4}, {"hidden", 256}}, 8);
  REQUIRE(r.candidates.size() == 2);
  CHECK(r.candidates[0].origin == "llm");
  CHECK(r.candidates[0].source.rfind("#define THREADS 16\n#line 1\n", 0) == 0);
  CHECK(r.candidates[1].launch.eval({{"tokens", 4}, {"hidden", 256}}).block[0] == 32);
  CHECK(render_llm_kernel(rmsnorm(), *p.kernel, {{"tokens", 4}, {"hidden", 256}}, 1).candidates.size() == 1);
  // A parameter may not shadow the op's symbols.
  j["params"] = {{"hidden", {1}}};
  CHECK(parse_llm_reply(j.dump(), rmsnorm()).error.find("name of one of the op's symbols") != std::string::npos);
}

TEST_CASE("llm reply: a lesson proposal is read beside the kernel, and a broken one does not cost the kernel") {
  nlohmann::json j = good();
  j["lesson"] = {{"situation", "rmsnorm with hidden=256 on emu"}, {"action", "one thread per row"}, {"tags", {"technique/row-per-thread"}}};
  ParsedReply p = parse_llm_reply(j.dump(), rmsnorm());
  REQUIRE(p.kernel);
  REQUIRE(p.lesson);
  CHECK(p.lesson->action == "one thread per row");
  CHECK(p.lesson->tags == std::vector<std::string>{"technique/row-per-thread"});
  j["lesson"] = "be faster";
  p = parse_llm_reply(j.dump(), rmsnorm());
  CHECK(p.kernel);
  CHECK_FALSE(p.lesson);
  CHECK(p.lesson_error == "'lesson' is not an object");
}
