#include "validator/evaluation_request.hpp"

#include <algorithm>
#include <stdexcept>

namespace hone {

namespace {

// A CUBIN is binary and requests travel as JSON text: it goes as hex.
std::string to_hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string from_hex(const std::string& hex) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw std::invalid_argument("evaluation request: cubin_hex holds a character that is not a hex digit");
  };
  if (hex.size() % 2) throw std::invalid_argument("evaluation request: cubin_hex has an odd number of digits");
  std::string out(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(value(hex[2 * i]) << 4 | value(hex[2 * i + 1]));
  return out;
}

nlohmann::json kernel_to_json(const KernelUnderTest& k) {
  nlohmann::json j = {{"entry", k.image.entry},
                      {"emu_object", k.image.emu_object.string()},
                      {"emu_invoke", k.image.emu_invoke},
                      {"launch", k.launch.to_json()}};
  if (!k.image.cubin.empty()) j["cubin_hex"] = to_hex(k.image.cubin);
  if (!k.image.ptx.empty()) j["ptx"] = k.image.ptx;
  return j;
}

KernelUnderTest kernel_from_json(const nlohmann::json& j) {
  KernelUnderTest k;
  k.image.entry = j.at("entry").get<std::string>();
  k.image.emu_object = j.at("emu_object").get<std::string>();
  k.image.emu_invoke = j.at("emu_invoke").get<std::string>();
  k.image.cubin = from_hex(j.value("cubin_hex", ""));
  k.image.ptx = j.value("ptx", "");
  k.launch = parse_launch_rule(j.at("launch"), "evaluation request", "launch");
  return k;
}

}  // namespace

std::uint64_t request_buffer_bytes(const OpSpec& op, const EvaluationRequest& r) {
  Bindings largest = r.shape;
  for (const auto& [symbol, bucket] : r.buckets)
    if (largest.count(symbol)) largest[symbol] = std::max(largest[symbol], bucket.hi);
  return buffer_bytes_at(op, largest);
}

std::uint64_t buffer_bytes_at(const OpSpec& op, const Bindings& shape) {
  std::uint64_t bytes = 0;
  for (const auto& a : op.args)
    if (a.pointer) bytes += static_cast<std::uint64_t>(a.elements(shape)) * dtype_size(a.dtype);
  return bytes;
}

void to_json(nlohmann::json& j, const EvaluationRequest& r) {
  nlohmann::json buckets = nlohmann::json::object();
  for (const auto& [k, b] : r.buckets) buckets[k] = {b.lo, b.hi};
  j = {{"spec_dir", r.spec_dir.string()},
       {"spec_hash", r.spec_hash},
       {"shape", r.shape},
       {"buckets", buckets},
       {"scalars", r.scalars},
       {"reference", kernel_to_json(r.reference)},
       {"candidate", kernel_to_json(r.candidate)},
       {"check", r.check},
       {"seeds", r.seeds},
       {"hidden_seed", r.hidden_seed},
       {"time", r.time},
       {"time_against_baseline", r.time_against_baseline},
       {"launch_limit_s", r.launch_limit_s},
       {"launch_limit_basis", r.launch_limit_basis},
       {"timing",
        {{"warmup_runs", r.timing.warmup_runs},
         {"warmup_ms", r.timing.warmup_ms},
         {"repeats", r.timing.repeats},
         {"max_total_ms", r.timing.max_total_ms},
         {"max_spread", r.timing.max_spread},
         {"remeasures", r.timing.remeasures}}}};
  if (r.baseline) j["baseline"] = kernel_to_json(*r.baseline);
}

void from_json(const nlohmann::json& j, EvaluationRequest& r) {
  r.spec_dir = j.at("spec_dir").get<std::string>();
  r.spec_hash = j.value("spec_hash", "");
  r.shape = j.at("shape").get<Bindings>();
  for (const auto& [k, b] : j.at("buckets").items()) r.buckets[k] = {b.at(0).get<std::int64_t>(), b.at(1).get<std::int64_t>()};
  r.scalars = j.at("scalars").get<std::map<std::string, double>>();
  r.reference = kernel_from_json(j.at("reference"));
  r.candidate = kernel_from_json(j.at("candidate"));
  r.check = j.at("check").get<bool>();
  r.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  r.hidden_seed = j.at("hidden_seed").get<std::uint64_t>();
  r.time = j.at("time").get<bool>();
  r.time_against_baseline = j.at("time_against_baseline").get<bool>();
  if (j.contains("baseline")) r.baseline = kernel_from_json(j.at("baseline"));
  r.launch_limit_s = j.at("launch_limit_s").get<double>();
  r.launch_limit_basis = j.at("launch_limit_basis").get<std::string>();
  const auto& t = j.at("timing");
  r.timing = {t.at("warmup_runs").get<int>(),  t.at("warmup_ms").get<double>(), t.at("repeats").get<int>(),
              t.at("max_total_ms").get<double>(), t.at("max_spread").get<double>(), t.at("remeasures").get<int>()};
}

}  // namespace hone
