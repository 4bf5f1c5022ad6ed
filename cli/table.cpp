#include "cli/table.hpp"

#include <algorithm>
#include <cctype>

namespace hone::cli {

std::string Table::str() const {
  std::vector<std::size_t> width;
  for (const auto& r : rows_) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (std::size_t ri = 0; ri < rows_.size(); ++ri) {
    const auto& r = rows_[ri];
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const bool numeric = ri > 0 && !r[i].empty() && (std::isdigit(static_cast<unsigned char>(r[i][0])) || r[i][0] == '-');
      const std::string pad(width[i] - r[i].size(), ' ');
      line += (i ? "  " : "") + (numeric ? pad + r[i] : r[i] + (i + 1 < r.size() ? pad : ""));
    }
    out += line + "\n";
    if (ri == 0) {
      std::size_t total = 0;
      for (std::size_t i = 0; i < width.size(); ++i) total += width[i] + (i ? 2 : 0);
      out += std::string(total, '-') + "\n";
    }
  }
  return out;
}

}  // namespace hone::cli
