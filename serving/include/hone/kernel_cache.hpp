#pragma once
// hone's kernel cache loader for serving engines: header-only C++17, with no dependency on the
// rest of hone. It needs nlohmann/json (header-only), OpenSSL's libcrypto (SHA-256; -lcrypto)
// and libdl; the CUDA driver is loaded with dlopen("libcuda.so.1") only to load and launch.
//
//   hone::KernelCache cache("kernel-cache");
//   auto k = cache.find("rmsnorm", {{"tokens", 7}, {"hidden", 4096}});
//   if (!k) throw std::runtime_error(k.miss_reason());
//   k.launch(stream, out, x, w, 7, 4096, 1e-6f);
//
// The format and the rules that pick an entry are in serving/FORMAT.md.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hone/kernel_cache/cuda_driver.hpp"
#include "hone/kernel_cache/entry_selection.hpp"
#include "hone/kernel_cache/error.hpp"
#include "hone/kernel_cache/kernel_args.hpp"
#include "hone/kernel_cache/launch_expr.hpp"
#include "hone/kernel_cache/manifest.hpp"
#include "hone/kernel_cache/sha256.hpp"

namespace hone {

struct KernelCacheOptions {
  /// The GPU architecture to load for, "sm_90"; empty: the device of the current CUDA context
  /// (asks the driver at the first find).
  std::string arch;
  /// Serve entries measured on another device kind (emu: CPU emulation) or architecture. They
  /// are correct there, but their times say nothing about this GPU, so this is never the default.
  bool allow_other_devices = false;
  /// Check every file's SHA-256 when the cache is opened, so a corrupted cache is refused at
  /// start-up rather than at the first launch. The file a kernel loads is checked again anyway.
  bool verify_files = true;
};

namespace kernel_cache {

/// Grid, block and dynamic shared memory of one launch.
struct LaunchDims {
  long long grid[3] = {1, 1, 1};
  long long block[3] = {1, 1, 1};
  long long smem = 0;
};

/// A scratch (workspace) argument at the shape a kernel was found for: the device buffer the
/// engine allocates and passes for it (its contents on entry do not matter), the first
/// `zeroed_bytes` of which must be zero before the first call (the kernel leaves them zero).
struct ScratchSize {
  std::string name;
  long long bytes = 0;
  long long zeroed_bytes = 0;
};

namespace detail {

// One entry's image, read and checked once, and its function in each context that loaded it.
struct LoadedEntry {
  std::string image;                           // CUBIN or PTX bytes (SHA-256 checked)
  std::string what;                            // "kernels/ab12.sm_90.cubin (rmsnorm_...)" for errors
  std::mutex mutex;
  std::map<CudaDriver::Context, CudaDriver::Function> functions;
};

}  // namespace detail
}  // namespace kernel_cache

/// A kernel found in the cache for one shape, or a miss with its reason.
class CachedKernel {
 public:
  CachedKernel() = default;

  bool found() const { return entry_ != nullptr; }
  explicit operator bool() const { return found(); }
  /// Why nothing was found ("" when found).
  const std::string& miss_reason() const { return reason_; }

  /// The manifest entry; throws KernelCacheError on a miss.
  const kernel_cache::CacheEntry& entry() const {
    require();
    return *entry_;
  }
  /// "cubin" when the CUBIN matches the GPU's architecture, "ptx" when the driver JIT-compiles.
  const std::string& image_kind() const { return image_kind_; }
  /// The file the image comes from, inside the cache directory.
  const std::string& image_path() const { return image_path_; }
  /// The shape it was found for: launches use it.
  const kernel_cache::Shape& shape() const { return shape_; }
  /// The launch rule evaluated at shape().
  const kernel_cache::LaunchDims& dims() const { return dims_; }
  /// Every scratch argument's size at shape(), in argument order (none: empty).
  const std::vector<kernel_cache::ScratchSize>& scratch() const { return scratch_; }

  /// The parameter array a launch with these arguments would pass; checks them as launch does.
  kernel_cache::PackedArgs pack(const std::vector<kernel_cache::ArgValue>& values) const {
    require();
    return kernel_cache::pack_args(*entry_, values, shape_);
  }

  /// Launches on `stream` (a CUstream or cudaStream_t; null: the default stream) in the current
  /// context, loading the module in it on first use. Arguments are the kernel's, in order:
  /// device pointers, integers, floats (FORMAT.md, "args").
  template <class... A>
  void launch(void* stream, A... args) const {
    launch_values(stream, {kernel_cache::arg_value(args)...});
  }

  void launch_values(void* stream, const std::vector<kernel_cache::ArgValue>& values) const {
    kernel_cache::PackedArgs packed = pack(values);
    auto& driver = kernel_cache::CudaDriver::get();
    CudaDriverFunction f = function(driver);
    driver.launch(f, dims_.grid, dims_.block, dims_.smem, stream, packed.params.data(), state_->what);
  }

 private:
  friend class KernelCache;
  using CudaDriverFunction = kernel_cache::CudaDriver::Function;

  void require() const {
    if (!entry_) throw KernelCacheError("no kernel: " + reason_);
  }
  CudaDriverFunction function(kernel_cache::CudaDriver& driver) const {
    const auto ctx = driver.current_context();
    std::lock_guard<std::mutex> lock(state_->mutex);
    auto it = state_->functions.find(ctx);
    if (it != state_->functions.end()) return it->second;
    // Modules stay loaded for the life of their context: engines keep their kernels that long,
    // and the driver frees them with the context.
    const auto module = driver.load_module(state_->image, state_->what);
    const auto f = driver.function(module, entry_->entry);
    state_->functions[ctx] = f;
    return f;
  }

  std::shared_ptr<const kernel_cache::Manifest> manifest_;
  const kernel_cache::CacheEntry* entry_ = nullptr;
  std::shared_ptr<kernel_cache::detail::LoadedEntry> state_;
  std::string image_kind_, image_path_, reason_;
  kernel_cache::Shape shape_;
  kernel_cache::LaunchDims dims_;
  std::vector<kernel_cache::ScratchSize> scratch_;
};

/// A kernel cache directory written by `hone export`. Thread-safe: find and launch may be called
/// from several threads.
class KernelCache {
 public:
  /// Reads and checks `dir`/manifest.json (and, with verify_files, every file it names). Throws
  /// KernelCacheError naming the file and the problem: another program's file, a newer format, a
  /// malformed entry, a missing file, a SHA-256 mismatch.
  explicit KernelCache(const std::string& dir, KernelCacheOptions options = {})
      : dir_(dir), options_(std::move(options)),
        manifest_(std::make_shared<kernel_cache::Manifest>(kernel_cache::read_manifest(dir))),
        states_(manifest_->entries.size()) {
    if (options_.verify_files) verify();
  }

  /// Checks that every file of every entry is there with its recorded SHA-256; throws on the
  /// first that is not.
  void verify() const {
    for (const auto& e : manifest_->entries)
      for (const auto& [kind, path] : e.files) kernel_cache::read_verified(dir_ + "/" + path, e.sha256.at(kind));
  }

  /// The kernel for `op` at `shape` (every static dim and dynamic dim of the op, e.g.
  /// {{"tokens", 7}, {"hidden", 4096}}), or a miss that says why. Throws KernelCacheError only
  /// for a cache that cannot be trusted (the image's SHA-256 does not match) or, when no
  /// architecture was given, when the driver cannot say which GPU this is.
  CachedKernel find(const std::string& op, const kernel_cache::Shape& shape) const {
    CachedKernel k;
    k.manifest_ = manifest_;
    k.shape_ = shape;
    const auto sel = kernel_cache::select_entry(*manifest_, op, shape, {arch(), options_.allow_other_devices}, dir_);
    if (!sel.entry) {
      k.reason_ = sel.reason;
      return k;
    }
    const auto& e = *sel.entry;
    try {
      for (int i = 0; i < 3; ++i) {
        k.dims_.grid[i] = kernel_cache::eval_expr(e.grid[i], shape);
        k.dims_.block[i] = kernel_cache::eval_expr(e.block[i], shape);
      }
      k.dims_.smem = kernel_cache::eval_expr(e.smem, shape);
      for (const auto& a : e.args)
        if (a.role == "scratch")
          k.scratch_.push_back({a.name, kernel_cache::eval_expr(a.bytes, shape),
                                a.zeroed_bytes.empty() ? 0 : kernel_cache::eval_expr(a.zeroed_bytes, shape)});
    } catch (const KernelCacheError& err) {
      k.reason_ = e.label() + " (" + e.entry + "): its launch rule or scratch size does not evaluate at this shape: " + err.what();
      return k;
    }
    const long long threads = k.dims_.block[0] * k.dims_.block[1] * k.dims_.block[2];
    for (int i = 0; i < 3; ++i)
      if (k.dims_.grid[i] <= 0 || k.dims_.block[i] <= 0 || threads > 1024) {
        k.reason_ = e.label() + " (" + e.entry + "): its launch rule gives an invalid launch at this shape";
        return k;
      }
    k.entry_ = &e;
    k.image_kind_ = sel.image;
    k.image_path_ = dir_ + "/" + e.files.at(sel.image);
    k.state_ = state(e, sel.image, k.image_path_);
    return k;
  }

  /// The architecture kernels are loaded for (the option, else the current GPU's).
  std::string arch() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (arch_.empty()) arch_ = options_.arch.empty() ? kernel_cache::CudaDriver::get().current_arch() : options_.arch;
    return arch_;
  }

  const kernel_cache::Manifest& manifest() const { return *manifest_; }
  const std::string& dir() const { return dir_; }

 private:
  // The entry's image, read and checked on its first find.
  std::shared_ptr<kernel_cache::detail::LoadedEntry> state(const kernel_cache::CacheEntry& e, const std::string& image,
                                                           const std::string& path) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = states_[e.index][image];
    if (!slot) {
      auto s = std::make_shared<kernel_cache::detail::LoadedEntry>();
      s->image = kernel_cache::read_verified(path, e.sha256.at(image));
      s->what = path + " (" + e.entry + ")";
      slot = s;
    }
    return slot;
  }

  std::string dir_;
  KernelCacheOptions options_;
  std::shared_ptr<const kernel_cache::Manifest> manifest_;
  mutable std::mutex mutex_;
  mutable std::string arch_;
  mutable std::vector<std::map<std::string, std::shared_ptr<kernel_cache::detail::LoadedEntry>>> states_;
};

}  // namespace hone
