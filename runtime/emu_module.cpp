#include "runtime/emu_module.hpp"

#include <dlfcn.h>
#include <link.h>

#include <array>
#include <limits>

#include "runtime/emu/compile/elf_initialisers.hpp"
#include "runtime/emu/compile/emu_source.hpp"
#include "runtime/emu/rt/grid.hpp"

namespace hone {

namespace {

// The size of the PT_TLS segment of the loaded object with TLS module id `modid`.
std::size_t tls_segment_bytes(std::size_t modid) {
  struct Search {
    std::size_t modid;
    std::size_t bytes = 0;
  } search{modid};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_tls_modid != s->modid) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_TLS) s->bytes = info->dlpi_phdr[i].p_memsz;
        return 1;
      },
      &search);
  return search.bytes;
}

// Where the module's static __shared__ variables are, relative to its anchor (see emu_source.hpp);
// an empty layout (nothing poisoned) when the object has no anchor or the loader says otherwise.
emu::StaticSharedLayout static_shared_layout(void* handle) {
  emu::StaticSharedLayout layout;
  auto* touch = reinterpret_cast<void* (*)()>(dlsym(handle, emu::kStaticSharedAnchor));
  if (!touch) return layout;
  auto* anchor = static_cast<unsigned char*>(touch());
  void* block = nullptr;
  std::size_t modid = 0;
  if (dlinfo(handle, RTLD_DI_TLS_DATA, &block) != 0 || !block || dlinfo(handle, RTLD_DI_TLS_MODID, &modid) != 0)
    return layout;
  const std::size_t bytes = tls_segment_bytes(modid);
  const std::ptrdiff_t offset = anchor - static_cast<unsigned char*>(block);
  if (offset < 0 || static_cast<std::size_t>(offset) >= bytes) return layout;
  layout.touch = touch;
  layout.offset = offset;
  layout.bytes = bytes;
  return layout;
}

}  // namespace

struct EmuModule::Impl {
  void* handle = nullptr;
  void (*invoke)(void**) = nullptr;
  emu::StaticSharedLayout static_shared;
  std::array<unsigned, 3> cluster{1, 1, 1};  // the entry's __cluster_dims__
  ~Impl() {
    if (handle) dlclose(handle);
  }
};

EmuModule EmuModule::load(const std::filesystem::path& shared_object, const std::string& invoke_symbol,
                          const std::array<unsigned, 3>& cluster) {
  // dlopen runs the object's initialisers: look before loading (the build refused such objects
  // already; this catches one that did not come from compile_for_emu).
  if (const std::string problem = emu::host_initialiser_problem(shared_object); !problem.empty())
    throw std::runtime_error("refusing to load emu kernel " + shared_object.string() + ": " + problem);
  auto impl = std::make_shared<Impl>();
  impl->handle = dlopen(shared_object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!impl->handle) {
    const char* why = dlerror();
    throw std::runtime_error("cannot load emu kernel " + shared_object.string() + ": " + (why ? why : "unknown error"));
  }
  dlerror();
  void* symbol = dlsym(impl->handle, invoke_symbol.c_str());
  if (!symbol)
    throw std::runtime_error("emu kernel " + shared_object.string() + " has no symbol " + invoke_symbol);
  impl->invoke = reinterpret_cast<void (*)(void**)>(symbol);
  impl->static_shared = static_shared_layout(impl->handle);
  impl->cluster = cluster;
  EmuModule module;
  module.impl_ = std::move(impl);
  return module;
}

std::size_t EmuModule::static_shared_bytes() const { return impl_ ? impl_->static_shared.bytes : 0; }

void EmuModule::launch(const LaunchDims& dims, void** args, std::uint64_t schedule_seed) const {
  if (!impl_) throw std::runtime_error("EmuModule::launch on a module that was not loaded");
  emu::GridShape shape;
  auto dim = [](std::int64_t v, const char* what, const std::array<std::int64_t, 3>& all) -> unsigned {
    if (v <= 0 || v > std::numeric_limits<unsigned>::max())
      throw EmuKernelError(std::string("invalid launch: ") + what + " (" + std::to_string(all[0]) + "," +
                           std::to_string(all[1]) + "," + std::to_string(all[2]) + ") has a " +
                           (v == 0 ? "zero" : "out-of-range") + " dimension");
    return static_cast<unsigned>(v);
  };
  for (int i = 0; i < 3; ++i) {
    shape.grid[i] = dim(dims.grid[i], "grid", dims.grid);
    shape.block[i] = dim(dims.block[i], "block", dims.block);
  }
  if (dims.smem < 0) throw EmuKernelError("invalid launch: negative dynamic shared memory " + std::to_string(dims.smem));
  shape.dynamic_smem = static_cast<std::size_t>(dims.smem);
  for (int i = 0; i < 3; ++i) shape.cluster[i] = impl_->cluster[i];
  emu::LaunchExtras extras;
  extras.static_shared = impl_->static_shared;
  extras.schedule_seed = schedule_seed;
  if (std::string fault = emu::run_grid(impl_->invoke, args, shape, extras); !fault.empty()) throw EmuKernelError(fault);
}

}  // namespace hone
