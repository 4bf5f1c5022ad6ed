#pragma once
// A fixed-size text buffer that signal handlers can fill: no allocation, no locale, no stdio.
#include <cstddef>
#include <cstdint>

namespace hone::emu {

class SignalText {
 public:
  SignalText& add(const char* s) {
    for (; s && *s && len_ + 1 < sizeof buf_; ++s) buf_[len_++] = *s;
    buf_[len_] = '\0';
    return *this;
  }
  SignalText& add(std::uint64_t v) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v && n < 24);
    while (n > 0 && len_ + 1 < sizeof buf_) buf_[len_++] = digits[--n];
    buf_[len_] = '\0';
    return *this;
  }
  SignalText& hex(std::uint64_t v) {
    add("0x");
    bool started = false;
    for (int shift = 60; shift >= 0; shift -= 4) {
      const unsigned d = static_cast<unsigned>(v >> shift) & 0xfu;
      if (!d && !started && shift) continue;
      started = true;
      const char c[2] = {static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10), '\0'};
      add(c);
    }
    return *this;
  }
  /// "(x,y,z)"
  SignalText& triple(unsigned x, unsigned y, unsigned z) {
    return add("(").add(std::uint64_t{x}).add(",").add(std::uint64_t{y}).add(",").add(std::uint64_t{z}).add(")");
  }
  const char* c_str() const { return buf_; }
  std::size_t size() const { return len_; }

 private:
  char buf_[1024] = {};
  std::size_t len_ = 0;
};

}  // namespace hone::emu
