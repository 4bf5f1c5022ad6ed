#include "validator/verdict.hpp"

#include <cmath>
#include <limits>

namespace hone {

namespace {

// JSON has no NaN or infinity, and a NaN is exactly what a poisoned output reads back as.
nlohmann::json number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

double number(const nlohmann::json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  return j.get<double>();
}

}  // namespace

void to_json(nlohmann::json& j, const Verdict& v) {
  j = {{"pass", v.pass},
       {"stage", v.stage},
       {"reason", v.reason},
       {"max_abs_err", number(v.max_abs_err)},
       {"worst", {{"buffer", v.worst.buffer}, {"index", v.worst.index}, {"got", number(v.worst.got)}, {"expected", number(v.worst.expected)}}},
       {"timing",
        {{"median_ms", v.timing.median_ms},
         {"min_ms", v.timing.min_ms},
         {"spread", v.timing.spread},
         {"runs", v.timing.runs},
         {"timer", v.timing.timer}}},
       {"detail", v.detail}};
}

void from_json(const nlohmann::json& j, Verdict& v) {
  v.pass = j.at("pass").get<bool>();
  v.stage = j.at("stage").get<std::string>();
  v.reason = j.at("reason").get<std::string>();
  v.max_abs_err = number(j.at("max_abs_err"));
  const auto& w = j.at("worst");
  v.worst = {w.at("buffer").get<std::string>(), w.at("index").get<std::string>(), number(w.at("got")), number(w.at("expected"))};
  const auto& t = j.at("timing");
  v.timing = {t.at("median_ms").get<double>(), t.at("min_ms").get<double>(), t.at("spread").get<double>(),
              t.at("runs").get<int>(), t.at("timer").get<std::string>()};
  v.detail = j.value("detail", nlohmann::json::object());
}

}  // namespace hone
