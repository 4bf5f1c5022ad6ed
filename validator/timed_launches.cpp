#include "validator/timed_launches.hpp"

#include <random>

namespace hone {

namespace {

std::uint64_t fresh_seed() {
  static std::random_device rd;
  return ((static_cast<std::uint64_t>(rd()) << 32) ^ rd()) | 1;  // never 0: that is the NaN poison
}

constexpr int kNanKind = 1;  // the kind poisoned with NaN; the others get finite garbage

}  // namespace

const char* TimedLaunches::poison_kind(std::size_t i) { return i % kPoisonKinds == kNanKind ? "NaN" : "finite numbers"; }

TimedLaunches::TimedLaunches(Device& device, const OpSpec& op, const Bindings& shape,
                             const std::map<std::string, double>& scalars, const std::vector<HostTensor>& host, int launches,
                             int input_sets)
    : op_(op) {
  // Drawn for this timing: a kernel cannot know the garbage it will find.
  // Only what a launch writes is copied: the pristine sets below share the inputs of the first
  // slot, and an MoE layer's expert weights are gigabytes.
  for (int k = 0; k < kPoisonKinds; ++k) {
    std::vector<HostTensor> values(host.size());
    const std::uint64_t seed = k == kNanKind ? 0 : fresh_seed();
    for (std::size_t i = 0; i < op.args.size(); ++i) {
      if (!op.args[i].pointer || op.args[i].role == ArgRole::In) continue;
      values[i] = host[i];
      if (op.args[i].role == ArgRole::Out) poison(values[i], seed ? seed + i : 0);
    }
    poisoned_.push_back(std::move(values));
  }

  const int sets = std::max(1, input_sets);
  const int count = launches > 1 ? launches : kPoisonKinds;
  for (int j = 0; j < count; ++j) {
    if (j < sets) slots_.push_back(std::make_unique<LaunchArgs>(device, op, shape, scalars, host));
    else slots_.push_back(std::make_unique<LaunchArgs>(*slots_[static_cast<std::size_t>(j % sets)], host));
  }
  for (int k = 0; k < kPoisonKinds; ++k) pristine_.push_back(std::make_unique<LaunchArgs>(*slots_.front(), poisoned_[k]));

  auto restore = [&](std::size_t j, BufferCopies& into) {
    const LaunchArgs& from = *pristine_[j % kPoisonKinds];
    for (std::size_t i = 0; i < op.args.size(); ++i)
      if (op.args[i].pointer && op.args[i].role != ArgRole::In) into.push_back({slots_[j]->pointer(i), from.pointer(i), host[i].size_bytes()});
  };
  if (launches > 1) {
    TimedSample batch;
    for (std::size_t j = 0; j < slots_.size(); ++j) {
      batch.arg_sets.push_back(slots_[j]->argv());
      restore(j, batch.before);
    }
    samples_.push_back(std::move(batch));
  } else {
    for (std::size_t j = 0; j < slots_.size(); ++j) {
      TimedSample single;
      single.arg_sets.push_back(slots_[j]->argv());
      restore(j, single.before);
      samples_.push_back(std::move(single));
    }
  }
}

std::vector<std::pair<std::size_t, HostTensor>> TimedLaunches::outputs(std::size_t j) const {
  std::vector<std::pair<std::size_t, HostTensor>> out;
  // Scratch is restored before every sample like the outputs, but its contents are the kernel's.
  for (std::size_t i = 0; i < op_.args.size(); ++i)
    if (op_.args[i].pointer && (op_.args[i].role == ArgRole::Out || op_.args[i].role == ArgRole::InOut))
      out.emplace_back(i, slots_[j]->download(i));
  return out;
}

std::vector<std::string> TimedLaunches::integrity_problems(std::size_t j) const { return slots_[j]->integrity_problems(); }

}  // namespace hone
