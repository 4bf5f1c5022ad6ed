#pragma once
// A file's bytes read and written whole, for tests that check a file is left untouched or damage one.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace hone::test {

/// The file's bytes; "" when it cannot be read.
inline std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
}

}  // namespace hone::test
