#pragma once
// Plain-text tables for the terminal: columns padded to their widest cell.
#include <string>
#include <vector>

namespace hone::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  /// The table with a rule under the header; numbers (cells starting with a digit) align right.
  std::string str() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace hone::cli
