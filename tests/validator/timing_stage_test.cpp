// What the timing stage launches (validator/timing_stage.hpp), counted on emu through a device
// that forwards every call and counts the launches of each kernel by stage.
#include <map>
#include <memory>
#include <string>

#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "runtime/device_select.hpp"
#include "validator/evaluation.hpp"
#include "validator/timing_plan.hpp"
#include "rmsnorm_variants.hpp"

using namespace hone;

namespace {

class CountingDevice : public Device {
 public:
  explicit CountingDevice(std::unique_ptr<Device> inner) : inner_(std::move(inner)) {}

  struct Counted : LoadedKernel {
    std::unique_ptr<LoadedKernel> inner;
    std::string entry;
  };

  const DeviceInfo& info() const override { return inner_->info(); }
  void* alloc(std::size_t bytes) override { return inner_->alloc(bytes); }
  void release(void* ptr) override { inner_->release(ptr); }
  void name_buffer(void* ptr, const std::string& name) override { inner_->name_buffer(ptr, name); }
  void upload(void* dst, const void* src, std::size_t bytes) override { inner_->upload(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override { inner_->download(dst, src, bytes); }
  std::unique_ptr<LoadedKernel> load(const KernelImage& image) override {
    auto k = std::make_unique<Counted>();
    k->inner = inner_->load(image);
    k->entry = image.entry;
    return k;
  }
  void launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) override {
    auto& k = static_cast<Counted&>(kernel);
    ++launches[{stage, k.entry}];
    inner_->launch(*k.inner, dims, args);
  }
  double timed_launch(LoadedKernel& kernel, const LaunchDims& dims, void** args, const BufferCopies& before) override {
    auto& k = static_cast<Counted&>(kernel);
    ++launches[{stage, k.entry}];
    return inner_->timed_launch(*k.inner, dims, args, before);
  }
  void set_schedule_seed(std::uint64_t seed) override { inner_->set_schedule_seed(seed); }

  std::string stage;
  std::map<std::pair<std::string, std::string>, int> launches;  // (stage, entry) -> launches

 private:
  std::unique_ptr<Device> inner_;
};

}  // namespace

TEST_CASE("timing stage: where the first check drew the timing's inputs, its reference results are not launched again") {
  const OpSpec op = load_op(templates_root(), "rmsnorm");
  EvaluationRequest r = test::rmsnorm_request(op, test::rmsnorm_variant("rmsnorm_right"), {{"tokens", 3}, {"hidden", 256}},
                                              "sm_90", "emu");
  r.timing.repeats = 3;
  CountingDevice device(open_device("emu", "sm_90"));
  const Verdict v = evaluate(device, r, [&](const std::string& stage) { device.stage = stage; });
  REQUIRE_MESSAGE(v.pass, v.reason);
  const std::string reference = r.reference.image.entry, candidate = r.candidate.image.entry;
  CHECK(device.launches[{"timing", candidate}] >= 1 + hone::kCpuSamples);  // warm-up and samples
  CHECK(device.launches[{"timing", reference}] == 0);
  CHECK(device.launches[{"reference", reference}] == 4);  // two seeds and the two input cases, each beside the candidate
  CHECK(device.launches[{"reference", candidate}] == 4);
}
