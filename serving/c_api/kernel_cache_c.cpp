// The C ABI over the header-only loader: each call catches what the C++ API throws and hands the
// message back as text, so no exception crosses into C or Python.
#include "hone/kernel_cache.h"

#include <cstring>
#include <memory>
#include <string>

#include "hone/kernel_cache.hpp"

struct hone_cache {
  std::unique_ptr<hone::KernelCache> cache;
};

struct hone_kernel {
  hone::CachedKernel kernel;
  std::string info;
};

namespace {

void set_error(char* error, std::size_t size, const std::string& text) {
  if (!error || size == 0) return;
  const std::size_t n = text.size() < size - 1 ? text.size() : size - 1;
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}

template <class F>
int guarded(char* error, std::size_t size, F f) {
  try {
    f();
    set_error(error, size, "");
    return 0;
  } catch (const std::exception& e) {
    set_error(error, size, e.what());
  } catch (...) {
    set_error(error, size, "unknown error");
  }
  return 1;
}

std::vector<hone::kernel_cache::ArgValue> arg_values(const hone_arg* args, std::size_t count) {
  std::vector<hone::kernel_cache::ArgValue> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    switch (args[i].kind) {
      case HONE_ARG_POINTER:
        v[i].kind = hone::kernel_cache::ArgValue::Kind::Pointer;
        v[i].pointer = args[i].value.pointer;
        break;
      case HONE_ARG_INT:
        v[i].kind = hone::kernel_cache::ArgValue::Kind::Integer;
        v[i].integer = args[i].value.integer;
        break;
      case HONE_ARG_FLOAT:
        v[i].kind = hone::kernel_cache::ArgValue::Kind::Float;
        v[i].real = args[i].value.real;
        break;
      default:
        throw hone::KernelCacheError("argument " + std::to_string(i) + " has unknown kind " + std::to_string(args[i].kind));
    }
  }
  return v;
}

std::string info_json(const hone::CachedKernel& k) {
  const auto& e = k.entry();
  const auto& d = k.dims();
  nlohmann::json scratch = nlohmann::json::array();
  for (const auto& s : k.scratch()) scratch.push_back({{"name", s.name}, {"bytes", s.bytes}, {"zeroed_bytes", s.zeroed_bytes}});
  nlohmann::json j = {{"entry", e.entry},
                      {"op", e.op},
                      {"arch", e.arch},
                      {"image", k.image_kind()},
                      {"image_path", k.image_path()},
                      {"index", e.index},
                      {"grid", {d.grid[0], d.grid[1], d.grid[2]}},
                      {"block", {d.block[0], d.block[1], d.block[2]}},
                      {"smem", d.smem},
                      {"scratch", scratch},
                      {"args", e.raw.value("args", nlohmann::json::array())},
                      {"device", e.raw.value("device", nlohmann::json::object())},
                      {"timer", e.timer},
                      {"time_ms", e.time_ms},
                      {"baseline_ms", e.baseline_ms}};
  return j.dump();
}

}  // namespace

extern "C" {

int hone_cache_format_version(void) { return hone::kernel_cache::kFormatVersion; }

hone_cache* hone_cache_open(const char* dir, const char* arch, unsigned flags, char* error, size_t error_size) {
  auto c = std::make_unique<hone_cache>();
  const int rc = guarded(error, error_size, [&] {
    if (!dir) throw hone::KernelCacheError("no cache directory given");
    hone::KernelCacheOptions o;
    o.arch = arch ? arch : "";
    o.allow_other_devices = flags & HONE_CACHE_ALLOW_OTHER_DEVICES;
    o.verify_files = !(flags & HONE_CACHE_NO_VERIFY);
    c->cache = std::make_unique<hone::KernelCache>(dir, o);
  });
  return rc == 0 ? c.release() : nullptr;
}

void hone_cache_close(hone_cache* cache) { delete cache; }

size_t hone_cache_entry_count(const hone_cache* cache) { return cache ? cache->cache->manifest().entries.size() : 0; }

int hone_cache_verify(const hone_cache* cache, char* error, size_t error_size) {
  return guarded(error, error_size, [&] { cache->cache->verify(); });
}

hone_kernel* hone_cache_find(hone_cache* cache, const char* op, const char* const* names, const int64_t* values,
                             size_t count, int* status, char* error, size_t error_size) {
  auto k = std::make_unique<hone_kernel>();
  bool missed = false;
  const int rc = guarded(error, error_size, [&] {
    if (!cache || !op) throw hone::KernelCacheError("no cache or no op given");
    hone::kernel_cache::Shape shape;
    for (std::size_t i = 0; i < count; ++i) shape[names[i]] = values[i];
    k->kernel = cache->cache->find(op, shape);
    missed = !k->kernel;
    if (missed) throw hone::KernelCacheError(k->kernel.miss_reason());
    k->info = info_json(k->kernel);
  });
  if (status) *status = rc == 0 ? HONE_FOUND : missed ? HONE_MISS : HONE_ERROR;
  return rc == 0 ? k.release() : nullptr;
}

void hone_kernel_free(hone_kernel* kernel) { delete kernel; }

const char* hone_kernel_info(const hone_kernel* kernel) { return kernel ? kernel->info.c_str() : "{}"; }

void hone_kernel_dims(const hone_kernel* kernel, hone_launch_dims* dims) {
  const auto& d = kernel->kernel.dims();
  for (int i = 0; i < 3; ++i) {
    dims->grid[i] = d.grid[i];
    dims->block[i] = d.block[i];
  }
  dims->smem = d.smem;
}

int64_t hone_kernel_scratch_bytes(const hone_kernel* kernel, const char* name, int64_t* zeroed_bytes) {
  if (!kernel || !name) return -1;
  for (const auto& s : kernel->kernel.scratch())
    if (s.name == name) {
      if (zeroed_bytes) *zeroed_bytes = s.zeroed_bytes;
      return s.bytes;
    }
  return -1;
}

int hone_kernel_check_args(const hone_kernel* kernel, const hone_arg* args, size_t count, char* error, size_t error_size) {
  return guarded(error, error_size, [&] { kernel->kernel.pack(arg_values(args, count)); });
}

int hone_kernel_launch(const hone_kernel* kernel, void* stream, const hone_arg* args, size_t count, char* error,
                       size_t error_size) {
  return guarded(error, error_size, [&] { kernel->kernel.launch_values(stream, arg_values(args, count)); });
}

}  // extern "C"
