#include "core/openai_url.hpp"

namespace hone {

std::string openai_url(std::string base, const std::string& resource) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  const auto scheme = base.find("://");
  const auto path = base.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return base + (path == std::string::npos ? "/v1/" : "/") + resource;
}

}  // namespace hone
