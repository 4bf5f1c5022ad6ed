#pragma once
// libcurl's handles owned by unique_ptr, and the write callback that collects a body into a
// std::string. Header-only: only the modules that talk HTTP link libcurl.
#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <string>

namespace hone {

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

using CurlHandle = std::unique_ptr<CURL, CurlFree>;
using CurlHeaders = std::unique_ptr<curl_slist, CurlFree>;

/// CURLOPT_WRITEFUNCTION appending to the std::string given as CURLOPT_WRITEDATA.
inline std::size_t append_to_string(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace hone
