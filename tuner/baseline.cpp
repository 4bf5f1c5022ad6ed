#include "tuner/baseline.hpp"

#include <mutex>

namespace hone {

namespace {

std::mutex registry_mutex;

std::vector<VendorBaseline>& registry() {
  static std::vector<VendorBaseline> makers;
  return makers;
}

}  // namespace

void register_vendor_baseline(VendorBaseline make) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().push_back(std::move(make));
}

std::vector<Baseline> task_baselines(const OpSpec& op, const DeviceInfo& device) {
  std::vector<Baseline> out{{"reference", reference_candidate(op)}};
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (const auto& make : registry())
    if (auto b = make(op, device)) out.push_back(std::move(*b));
  return out;
}

bool is_baseline_origin(const std::string& origin) { return origin == "reference" || origin.rfind("vendor:", 0) == 0; }

}  // namespace hone
