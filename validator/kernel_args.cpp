#include "validator/kernel_args.hpp"

#include <cstring>

namespace hone {

std::vector<HostTensor> generate_inputs(const OpSpec& op, const Bindings& shape, std::uint64_t seed) {
  std::vector<HostTensor> out(op.args.size());
  for (std::size_t i = 0; i < op.args.size(); ++i) {
    const ArgSpec& a = op.args[i];
    if (!a.pointer) continue;
    const auto n = static_cast<std::size_t>(a.elements(shape));
    if (a.role == ArgRole::Out) {
      out[i] = HostTensor(a.dtype, n);
      poison(out[i]);
    } else {
      // Each argument has its own stream, so adding an argument does not change the others' values.
      Rng rng(seed * 1000003u + i);
      out[i] = generate_tensor(a.dtype, n, a.init, rng);
    }
  }
  return out;
}

LaunchArgs::LaunchArgs(Device& device, const OpSpec& op, const Bindings& shape,
                       const std::map<std::string, double>& scalars, const std::vector<HostTensor>& host)
    : device_(device), op_(op), host_(host) {
  const std::size_t n = op.args.size();
  buffers_.resize(n);
  pointers_.resize(n, nullptr);
  scalars_.resize(n);
  argv_.resize(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    const ArgSpec& a = op.args[i];
    if (a.pointer) {
      buffers_[i] = DeviceBuffer(device, host[i].size_bytes());
      device.name_buffer(buffers_[i].get(), a.name);
      device.upload(buffers_[i].get(), host[i].bytes.data(), host[i].size_bytes());
      pointers_[i] = buffers_[i].get();
      argv_[i] = &pointers_[i];
      continue;
    }
    auto& slot = scalars_[i];
    slot.fill(0);
    if (dtype_is_float(a.dtype)) {
      auto it = scalars.find(a.name);
      store_element(slot.data(), a.dtype, 0, it == scalars.end() ? a.float_value : it->second);
    } else {
      store_element(slot.data(), a.dtype, 0, static_cast<double>(a.int_value.eval(shape)));
    }
    argv_[i] = slot.data();
  }
}

HostTensor LaunchArgs::download(std::size_t i) const {
  HostTensor t(op_.args[i].dtype, host_[i].count);
  device_.download(t.bytes.data(), buffers_[i].get(), t.size_bytes());
  return t;
}

}  // namespace hone
