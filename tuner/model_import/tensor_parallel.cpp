#include "tuner/model_import/tensor_parallel.hpp"

#include "core/input_error.hpp"

namespace hone {

std::int64_t TensorParallel::split(std::int64_t total, const std::string& what) const {
  if (total % tp != 0)
    throw input_error(file, "--tp " + std::to_string(tp) + " does not divide " + what + " = " + std::to_string(total) +
                                " (tensor parallelism splits it evenly over the GPUs)");
  return total / tp;
}

std::int64_t TensorParallel::kv_heads(std::int64_t total, const std::string& what) const {
  if (total >= tp) return split(total, what);
  if (tp % total != 0)
    throw input_error(file, "--tp " + std::to_string(tp) + " is not a multiple of " + what + " = " + std::to_string(total) +
                                " (with fewer kv heads than GPUs, each kv head is replicated on tp / kv_heads GPUs)");
  return 1;
}

std::int64_t TensorParallel::kv_replicas(std::int64_t total) const { return total >= tp ? 1 : tp / total; }

std::int64_t TensorParallel::vocab(std::int64_t vocab_size) const {
  const std::int64_t padded = (vocab_size + 63) / 64 * 64;
  return split(padded, padded == vocab_size ? "vocab_size" : "vocab_size padded to a multiple of 64");
}

}  // namespace hone
