#pragma once
// SHA-256 of a file's bytes, for checking the files a manifest names. OpenSSL's libcrypto: every
// Linux distribution ships it and engines link it already; link with -lcrypto.
#include <openssl/evp.h>

#include <fstream>
#include <iterator>
#include <string>

#include "hone/kernel_cache/error.hpp"

namespace hone::kernel_cache {

/// The SHA-256 of data as 64 lowercase hex digits.
inline std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr) != 1)
    throw KernelCacheError("SHA-256 failed (OpenSSL EVP_Digest)");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

/// The whole file; throws KernelCacheError naming it when it cannot be read.
inline std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw KernelCacheError(path + ": cannot be read (missing?)");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw KernelCacheError(path + ": read error");
  return data;
}

/// The file's bytes after checking them against `expected_sha256`; throws naming the file on a
/// mismatch, so a corrupted or edited kernel is never loaded.
inline std::string read_verified(const std::string& path, const std::string& expected_sha256) {
  std::string data = read_file_bytes(path);
  const std::string got = sha256_hex(data);
  if (got != expected_sha256)
    throw KernelCacheError(path + ": SHA-256 mismatch: the manifest says " + expected_sha256 + ", the file has " + got +
                           " (the file was changed or corrupted after export)");
  return data;
}

}  // namespace hone::kernel_cache
