#pragma once
// What validating a candidate concluded: pass or fail, the stage that decided and why, the worst
// element seen, and the timing.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace hone {

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double spread = 0;        // (p90 - p10) / median
  int runs = 0;
  std::string timer;        // "cpu" | "gpu"
};

/// The element of an output that is furthest outside the tolerance.
struct WorstElement {
  std::string buffer;       // argument name
  std::string index;        // "[3, 17]"
  double got = 0;
  double expected = 0;
};

struct Verdict {
  bool pass = false;
  std::string stage;        // "static" | "reference" | "timing" | "worker"
  std::string reason;       // "" on pass
  double max_abs_err = 0;
  WorstElement worst;
  TimingStats timing;
  nlohmann::json detail = nlohmann::json::object();

  static Verdict failed(std::string stage, std::string reason) {
    Verdict v;
    v.stage = std::move(stage);
    v.reason = std::move(reason);
    return v;
  }
};

void to_json(nlohmann::json& j, const Verdict& v);
void from_json(const nlohmann::json& j, Verdict& v);

}  // namespace hone
