#pragma once
// One POST of a JSON body to an HTTP endpoint (the OpenAI-compatible servers hone talks to), with
// what came back, for the caller to judge: its own retries, errors and redaction.
#include <curl/curl.h>

#include <optional>
#include <string>

namespace hone {

struct HttpPost {
  std::string url;
  std::string body;               // JSON
  std::string bearer_token;       // sent as "Authorization: Bearer ..." when not empty
  double timeout_s = 180;         // the whole exchange, connection included
  double connect_timeout_s = 10;
};

struct HttpExchange {
  CURLcode code = CURLE_OK;       // libcurl's verdict on the transfer
  std::string curl_error;         // its words for it
  long status = 0;                // the HTTP status, 0 when none came
  std::optional<double> retry_after_s;  // a 5xx or 429's Retry-After, when it sent one above 0
  std::string body;
};

/// Never follows redirects: one could carry the Authorization header to another host.
HttpExchange post_json(const HttpPost& request);

}  // namespace hone
