#include "core/http_post.hpp"

#include <memory>

namespace hone {

namespace {

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

std::size_t append_to_string(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

HttpExchange post_json(const HttpPost& request) {
  HttpExchange x;
  std::unique_ptr<CURL, CurlFree> curl(curl_easy_init());
  if (!curl) {
    x.code = CURLE_FAILED_INIT;
    x.curl_error = "cannot start libcurl";
    return x;
  }
  std::unique_ptr<curl_slist, CurlFree> headers;
  auto add_header = [&](const std::string& h) { headers.reset(curl_slist_append(headers.release(), h.c_str())); };
  add_header("Content-Type: application/json");
  if (!request.bearer_token.empty()) add_header("Authorization: Bearer " + request.bearer_token);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, request.body.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, append_to_string);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &x.body);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: hone has threads
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 0L);
  x.code = curl_easy_perform(curl.get());
  x.curl_error = error[0] ? error : curl_easy_strerror(x.code);
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &x.status);
  // libcurl answers 0 when there is no Retry-After header, so 0 means "none": such an answer gets
  // the caller's own backoff (a server that means "retry at once" gets a short wait).
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(curl.get(), CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0 &&
      (x.status == 429 || x.status >= 500))
    x.retry_after_s = static_cast<double>(retry_after);
  return x;
}

}  // namespace hone
