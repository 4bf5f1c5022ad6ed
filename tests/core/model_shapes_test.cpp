#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/input_error.hpp"
#include "core/model_shapes.hpp"

using namespace hone;

namespace {

std::filesystem::path write_shapes(const std::string& not_tuned) {
  auto p = std::filesystem::temp_directory_path() / ("hone-shapes-" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"model": "m", "dynamic": {"tokens": {}},
    "ops": [{"name": "norm", "op": "rmsnorm", "dims": {"tokens": "tokens", "hidden": 64}}])"
                   << (not_tuned.empty() ? "" : ", \"not_tuned\": " + not_tuned) << "}";
  return p;
}

}  // namespace

TEST_CASE("model shapes: the not_tuned list is read, with family_needed or op") {
  auto p = write_shapes(R"([{"name": "rope", "family_needed": "rope", "dims": {"D": 128}, "reason": "no family"},
                            {"name": "attn", "op": "attention_decode", "reason": "spec disagrees"}])");
  const ModelShapes m = load_model_shapes(p);
  REQUIRE(m.not_tuned.size() == 2);
  CHECK(m.not_tuned[0].name == "rope");
  CHECK(m.not_tuned[0].family == "rope");
  CHECK(m.not_tuned[0].dims["D"] == 128);
  CHECK(m.not_tuned[1].family == "attention_decode");
  CHECK(m.not_tuned[1].dims.empty());
  CHECK(load_model_shapes(write_shapes("")).not_tuned.empty());
  std::filesystem::remove(p);
}

TEST_CASE("model shapes: a malformed not_tuned list is refused naming the file and the entry") {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"name": "x"})", "'not_tuned' must be a list"},
      {R"([{"name": "x", "family_needed": "rope"}])", "not_tuned[0] lacks the field 'reason'"},
      {R"([{"name": "x", "reason": "r"}])", "not_tuned[0] (it names 'family_needed' or 'op') lacks the field 'op'"},
      {R"([{"name": "x", "family_needed": 3, "reason": "r"}])", "not_tuned[0].family_needed must be a string"},
      {R"([{"name": "x", "family_needed": "f", "reason": "r", "dims": [1]}])", "not_tuned[0].dims must be an object"},
  };
  for (const auto& [text, message] : cases) {
    CAPTURE(text);
    auto p = write_shapes(text);
    CHECK_THROWS_WITH_AS(load_model_shapes(p), doctest::Contains(message), InputError);
    std::filesystem::remove(p);
  }
}
