#pragma once
// A host tensor's bytes, shared by its copies until one of them is written. A model's weight
// matrix (1.2 GB for Qwen3-8B's lm_head) is drawn once for an evaluation and handed to each of
// its checks: as a copy per check it cost a gigabyte of fresh pages and a memcpy every time,
// which at M=1 is more than the launches.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

#include "core/host_blocks.hpp"

namespace hone {

class TensorBytes {
 public:
  TensorBytes() = default;
  /// `n` zero bytes.
  explicit TensorBytes(std::size_t n) : bytes_(std::make_shared<Block>(n, true)) {}
  /// `n` bytes the caller writes every one of before reading any.
  static TensorBytes uninitialized(std::size_t n) {
    TensorBytes t;
    t.bytes_ = std::make_shared<Block>(n, false);
    return t;
  }

  std::size_t size() const { return bytes_ ? bytes_->size : 0; }
  bool empty() const { return size() == 0; }
  const unsigned char* data() const { return bytes_ ? bytes_->data : nullptr; }
  /// For writing: a tensor that shares its bytes takes a copy of its own first. Take the pointer
  /// once before writing from several threads.
  unsigned char* data() {
    if (bytes_ && bytes_.use_count() > 1) {
      auto own = std::make_shared<Block>(bytes_->size, false);
      std::memcpy(own->data, bytes_->data, bytes_->size);
      bytes_ = std::move(own);
    }
    return bytes_ ? bytes_->data : nullptr;
  }
  unsigned char operator[](std::size_t i) const { return data()[i]; }
  const unsigned char* begin() const { return data(); }
  const unsigned char* end() const { return data() + size(); }
  /// Whether `other` holds these very bytes (a copy not yet written).
  bool shares_with(const TensorBytes& other) const { return bytes_ && bytes_ == other.bytes_; }

  friend bool operator==(const TensorBytes& a, const TensorBytes& b) {
    return a.size() == b.size() && (a.shares_with(b) || std::equal(a.begin(), a.end(), b.begin()));
  }
  friend bool operator!=(const TensorBytes& a, const TensorBytes& b) { return !(a == b); }

 private:
  // Large blocks are recycled (core/host_blocks.hpp): a model-sized check draws its inputs anew.
  struct Block {
    Block(std::size_t n, bool zeroed) : size(n), data(take_host_block(n, zeroed)) {}
    ~Block() { give_back_host_block(data, size); }
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;
    std::size_t size;
    unsigned char* data;
  };
  std::shared_ptr<Block> bytes_;
};

}  // namespace hone
