#pragma once
// Where an OpenAI-compatible server answers `resource` ("chat/completions", "embeddings"): the
// SDKs take a base with its version path (".../v1"), local servers are often given as a bare host.
#include <string>

namespace hone {

/// base + "/" + resource when the base has a path, base + "/v1/" + resource for a bare host;
/// trailing slashes of the base are ignored.
std::string openai_url(std::string base, const std::string& resource);

}  // namespace hone
