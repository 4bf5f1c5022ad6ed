#include "validator/kernel_args.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "core/scratch_fill.hpp"

namespace hone {

namespace {
constexpr unsigned char kGuardByte = 0xa5;
}  // namespace

std::vector<HostTensor> generate_inputs(const OpSpec& op, const Bindings& shape, std::uint64_t seed,
                                        const InputCase* input_case, const IndexModes& modes,
                                        const std::vector<HostTensor>* previous, std::uint64_t poison_seed,
                                        SharedOperands* shared) {
  std::vector<HostTensor> out(op.args.size());
  draw_index_inputs(op, shape, seed, modes, previous, out);
  for (std::size_t i = 0; i < op.args.size(); ++i) {
    const ArgSpec& a = op.args[i];
    if (!a.pointer || a.index || (previous && a.role == ArgRole::InOut)) continue;
    const auto n = static_cast<std::size_t>(a.elements(shape));
    if (a.role == ArgRole::Out) {
      out[i] = HostTensor(a.dtype, n);
      poison(out[i], poison_seed ? poison_seed * 1000003u + i : 0);
      continue;
    }
    if (a.role == ArgRole::Scratch) {
      out[i] = scratch_fill(a.dtype, n, static_cast<std::size_t>(a.zeroed.empty() ? 0 : a.zeroed.eval(shape)), seed * 1000003u + i);
      continue;
    }
    const InputDist* dist = &a.init;
    if (input_case) {
      auto it = input_case->args.find(a.name);
      if (it != input_case->args.end()) dist = &it->second;
    }
    // Each argument has its own stream, so adding an argument does not change the others' values.
    Rng rng(seed * 1000003u + i);
    const auto rows = static_cast<std::size_t>(a.dims.front().eval(shape));
    if (!a.addressed && shared && a.role == ArgRole::In && shared->shares(n * dtype_size(a.dtype)))
      out[i] = shared->get(i, n, rows, *dist, [&] { return generate_tensor(a.dtype, n, *dist, rng, rows); });
    else if (!a.addressed) out[i] = generate_tensor(a.dtype, n, *dist, rng, rows);
    else
      out[i] = generate_addressed(a.dtype, n, *dist, rng, rows, addressed_ranges(op, a, shape, out),
                                  a.role == ArgRole::In ? AddressedRest::poison : AddressedRest::drawn_copies);
  }
  return out;
}

LaunchArgs::LaunchArgs(Device& device, const OpSpec& op, const Bindings& shape,
                       const std::map<std::string, double>& scalars, const std::vector<HostTensor>& host, bool inputs_only)
    : device_(device), op_(op), host_(host) {
  const std::size_t n = op.args.size();
  buffers_.resize(n);
  pointers_.resize(n, nullptr);
  scalars_.resize(n);
  argv_.resize(n, nullptr);
  written_.resize(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const ArgSpec& a = op.args[i];
    if (a.pointer) {
      if (!inputs_only || a.role == ArgRole::In) upload(i);
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

void LaunchArgs::alias(std::size_t arg, std::size_t onto) {
  pointers_[arg] = pointers_[onto];
  written_[onto] = true;
}

LaunchArgs::LaunchArgs(const LaunchArgs& inputs, const std::vector<HostTensor>& host)
    : device_(inputs.device_), op_(inputs.op_), host_(host), buffers_(inputs.op_.args.size()), pointers_(inputs.pointers_),
      scalars_(inputs.scalars_), argv_(inputs.argv_.size(), nullptr), written_(inputs.written_) {
  for (std::size_t i = 0; i < op_.args.size(); ++i) {
    const ArgSpec& a = op_.args[i];
    if (a.pointer && a.role != ArgRole::In) upload(i);
    else argv_[i] = a.pointer ? static_cast<void*>(&pointers_[i]) : static_cast<void*>(scalars_[i].data());
  }
}

namespace {

const std::array<unsigned char, LaunchArgs::kGuardBytes>& guard_pattern() {
  static const auto pattern = [] {
    std::array<unsigned char, LaunchArgs::kGuardBytes> p;
    p.fill(kGuardByte);
    return p;
  }();
  return pattern;
}

// The first byte at which `bytes` of device memory differ from `host`, or `bytes` when they agree:
// read in place where the host can (emu), else downloaded a slice at a time, so that checking a
// gigabyte of expert weights allocates no gigabyte.
std::size_t first_difference(Device& device, const void* device_src, const unsigned char* host, std::size_t bytes) {
  constexpr std::size_t kSlice = std::size_t{4} << 20;
  const auto* in_place = static_cast<const unsigned char*>(device.host_readable(device_src));
  std::vector<unsigned char> slice(in_place ? 0 : std::min(bytes, kSlice));
  for (std::size_t at = 0; at < bytes; at += kSlice) {
    const std::size_t n = std::min(kSlice, bytes - at);
    const unsigned char* got = in_place ? in_place + at : slice.data();
    if (!in_place) device.download(slice.data(), static_cast<const unsigned char*>(device_src) + at, n);
    if (std::memcmp(got, host + at, n) == 0) continue;
    std::size_t k = 0;
    while (got[k] == host[at + k]) ++k;
    return at + k;
  }
  return bytes;
}

}  // namespace

void LaunchArgs::upload(std::size_t i) {
  const std::size_t bytes = host_[i].size_bytes();
  buffers_[i] = DeviceBuffer(device_, bytes + 2 * kGuardBytes);
  device_.name_buffer(buffers_[i].get(), op_.args[i].name);
  auto* base = static_cast<unsigned char*>(buffers_[i].get());
  device_.upload(base, guard_pattern().data(), kGuardBytes);
  device_.upload(base + kGuardBytes, host_[i].bytes.data(), bytes);
  device_.upload(base + kGuardBytes + bytes, guard_pattern().data(), kGuardBytes);
  pointers_[i] = base + kGuardBytes;
  argv_[i] = &pointers_[i];
}

HostTensor LaunchArgs::download(std::size_t i, std::size_t count) const {
  HostTensor t = HostTensor::uninitialized(op_.args[i].dtype, std::min(count, host_[i].count));  // the download writes it all
  device_.download(t.bytes.data(), pointers_[i], t.size_bytes());
  return t;
}

std::vector<std::string> LaunchArgs::integrity_problems() const {
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < op_.args.size(); ++i) {
    const ArgSpec& a = op_.args[i];
    if (!a.pointer || !buffers_[i].get()) continue;
    const std::size_t bytes = host_[i].size_bytes();
    const auto* base = static_cast<const unsigned char*>(buffers_[i].get());
    std::array<unsigned char, kGuardBytes> guard;
    device_.download(guard.data(), base, kGuardBytes);
    for (std::size_t k = 0; k < kGuardBytes; ++k) {
      if (guard[kGuardBytes - 1 - k] != kGuardByte) {
        problems.push_back(fmt::format("wrote before the start of '{}' (byte {} before it)", a.name, k + 1));
        break;
      }
    }
    device_.download(guard.data(), base + kGuardBytes + bytes, kGuardBytes);
    for (std::size_t k = 0; k < kGuardBytes; ++k) {
      if (guard[k] != kGuardByte) {
        problems.push_back(fmt::format("wrote past the end of '{}' (byte {} after it)", a.name, k));
        break;
      }
    }
    if (a.role == ArgRole::In && !written_[i]) {
      const std::size_t first = first_difference(device_, base + kGuardBytes, host_[i].bytes.data(), bytes);
      if (first < bytes)
        problems.push_back(fmt::format("changed its input '{}' (first at element {})", a.name, first / dtype_size(a.dtype)));
    }
  }
  return problems;
}

}  // namespace hone
