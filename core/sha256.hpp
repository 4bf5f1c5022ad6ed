#pragma once
#include <string>
#include <string_view>

namespace hone {

/// The SHA-256 of data, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace hone
