#pragma once
// What one GPU holds under tensor parallelism, as vLLM shards a model: column-parallel layers split
// their outputs, row-parallel ones their K, attention heads are split, kv heads split or, when
// there are fewer than GPUs, replicated, and lm_head is split over the (padded) vocabulary. A size
// that does not divide is bad input naming the config and the dim.
#include <cstdint>
#include <string>

namespace hone {

struct TensorParallel {
  std::string file;   // the config, for errors
  std::int64_t tp = 1;

  /// total / tp; InputError naming `what` when tp does not divide it.
  std::int64_t split(std::int64_t total, const std::string& what) const;
  /// kv heads per GPU: total / tp, or 1 when total < tp (each kv head then lives on tp / total GPUs).
  std::int64_t kv_heads(std::int64_t total, const std::string& what) const;
  /// GPUs that hold a copy of each kv head (1 unless kv heads are fewer than GPUs).
  std::int64_t kv_replicas(std::int64_t total) const;
  /// lm_head rows per GPU: the vocabulary padded to a multiple of 64, as vLLM pads it, then split.
  std::int64_t vocab(std::int64_t vocab_size) const;
};

}  // namespace hone
