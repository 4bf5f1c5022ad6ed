#include "tuner/baseline.hpp"

#include <exception>
#include <mutex>

#include "runtime/cublas_gemv.hpp"
#include "runtime/cublas_library.hpp"

namespace hone {

namespace {

std::mutex registry_mutex;

std::vector<VendorBaseline>& registry() {
  static std::vector<VendorBaseline> makers{cublas_gemv_baseline};
  return makers;
}

}  // namespace

void register_vendor_baseline(VendorBaseline make) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().push_back(std::move(make));
}

std::vector<Baseline> task_baselines(const OpSpec& op, const DeviceInfo& device, std::vector<std::string>* left_out) {
  std::vector<Baseline> out{{"reference", reference_candidate(op)}};
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (const auto& make : registry()) {
    try {
      if (auto b = make(op, device)) out.push_back(std::move(*b));
    } catch (const std::exception& e) {
      if (left_out) left_out->push_back(std::string("vendor baseline left out: ") + e.what());
    }
  }
  return out;
}

std::optional<Baseline> cublas_gemv_baseline(const OpSpec& op, const DeviceInfo& device) {
  if (op.name != "gemv" || device.kind != "cuda") return std::nullopt;
  cublas_library();
  Candidate c;
  c.op = op.name;
  c.origin = "vendor:cublas";
  c.entry = kCublasGemvEntry;
  // The library picks its own launch; the rule only has to evaluate.
  c.launch.grid = c.launch.block = {Expr::constant(1), Expr::constant(1), Expr::constant(1)};
  return Baseline{c.origin, std::move(c)};
}

bool is_baseline_origin(const std::string& origin) { return origin == "reference" || origin.rfind("vendor:", 0) == 0; }

}  // namespace hone
