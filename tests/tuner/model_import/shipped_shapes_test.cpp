// The shapes files hone ships are the importer's output from the published configs kept in
// shapes/configs/: each agrees byte for byte with a fresh import (scripts/import-shapes makes
// them), and the tuner takes each one.
#include <algorithm>

#include "import_support.hpp"

#include "core/json_file.hpp"
#include "core/model_shapes.hpp"
#include "tuner/task.hpp"

using namespace hone;
using namespace hone::test;

namespace {

std::vector<std::filesystem::path> configs() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(hone_home() / "shapes" / "configs"))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("model import: every config in shapes/configs/ has its shapes file, and the file is a fresh import of it") {
  const auto all = configs();
  REQUIRE(all.size() >= 11);
  for (const auto& config : all) {
    const auto shipped = hone_home() / "shapes" / (config.stem().string() + ".json");
    CAPTURE(shipped);
    REQUIRE_MESSAGE(std::filesystem::exists(shipped), "run scripts/import-shapes");
    const std::string text = read_text_file(shipped);
    const auto doc = nlohmann::json::parse(text);
    ImportOptions o;
    o.source = config;
    o.out = shipped;
    o.tp = doc["import"]["tp"].get<std::int64_t>();
    o.name = doc["model"].get<std::string>();
    o.hf_id = doc.value("hf_id", std::string());
    o.buckets = doc["dynamic"]["tokens"]["buckets"].get<std::vector<std::int64_t>>();
    if (doc["dynamic"].contains("context")) o.context_buckets = doc["dynamic"]["context"]["buckets"].get<std::vector<std::int64_t>>();
    CHECK(doc["import"]["config"] == "configs/" + config.filename().string());
    CHECK_MESSAGE(import_model(o, installed_families()).text == text,
                  "the shipped file differs from a fresh import (families or importer changed): run scripts/import-shapes");
  }
}

TEST_CASE("model import: the tuner takes every shipped shapes file, and it lists what it does not tune") {
  for (const auto& config : configs()) {
    const auto shipped = hone_home() / "shapes" / (config.stem().string() + ".json");
    CAPTURE(shipped);
    const ModelShapes m = load_model_shapes(shipped);
    const auto tasks = tasks_from_model(m, templates_root(), {}, "sm_90");
    CHECK(tasks.size() >= 7);
    CHECK_FALSE(m.not_tuned.empty());
    for (const auto& n : m.not_tuned) {
      CHECK_FALSE(n.name.empty());
      CHECK_FALSE(n.family.empty());
      CHECK_FALSE(n.reason.empty());
    }
  }
}
