#include "core/shard.hpp"

#include <cctype>

#include "core/input_error.hpp"

namespace hone {

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  auto number = [&](const std::string& s) -> long long {
    if (s.empty() || s.size() > 9) return -1;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    return std::stoll(s);
  };
  const long long i = slash == std::string::npos ? -1 : number(text.substr(0, slash));
  const long long n = slash == std::string::npos ? -1 : number(text.substr(slash + 1));
  if (i < 0 || n < 1 || i >= n)
    throw InputError("--shard '" + text + "': expected i/n with 0 <= i < n, e.g. 0/4 for the first of four");
  return {static_cast<std::size_t>(i), static_cast<std::size_t>(n)};
}

}  // namespace hone
