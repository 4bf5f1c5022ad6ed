#pragma once
// The messages between hone and a sandboxed compile process (validator/isolated_build.hpp): a
// build request (with the database's earlier NVRTC result, when it has one) and the build that
// came of it. CBOR, because a CUBIN is bytes and compiler logs need not be UTF-8, which JSON text
// would refuse or mangle.
#include <optional>
#include <string>

#include "runtime/kernel_build.hpp"

namespace hone {

struct WireBuildRequest {
  KernelBuildRequest request;
  std::optional<NvrtcResult> known_nvrtc;
};

std::string encode_build_request(const WireBuildRequest& request);
/// Throws std::runtime_error for bytes that are not a build request.
WireBuildRequest decode_build_request(const std::string& bytes);

std::string encode_kernel_build(const KernelBuild& build);
/// Throws std::runtime_error for bytes that are not a build.
KernelBuild decode_kernel_build(const std::string& bytes);

}  // namespace hone
