#pragma once
// Large read-only inputs (a model's weight matrices: lm_head's is 1.2 GB) drawn once per
// evaluation and handed to every later check that draws the same argument from the same
// distribution. Drawing them is most of what a check costs on a CPU, and a kernel learns nothing
// from meeting the same weights again: the activations, indices, states and outputs it gets are
// drawn afresh for every check, so what it must compute is new each time.
#include <cstddef>
#include <functional>
#include <map>
#include <tuple>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"

namespace hone {

class SharedOperands {
 public:
  static constexpr std::size_t kDefaultMinBytes = std::size_t{64} << 20;
  explicit SharedOperands(std::size_t min_bytes = kDefaultMinBytes) : min_bytes_(min_bytes) {}

  /// Whether an In argument of this size is drawn once and shared.
  bool shares(std::size_t bytes) const { return bytes >= min_bytes_; }
  /// Argument `arg` of `count` elements in `rows` rows from `dist`: `draw()` the first time, a
  /// copy of that draw afterwards.
  HostTensor get(std::size_t arg, std::size_t count, std::size_t rows, const InputDist& dist,
                 const std::function<HostTensor()>& draw);
  std::size_t draws() const { return draws_; }

 private:
  using Key = std::tuple<std::size_t, std::size_t, std::size_t, InputDist>;
  std::size_t min_bytes_;
  std::map<Key, HostTensor> kept_;
  std::size_t draws_ = 0;
};

}  // namespace hone
