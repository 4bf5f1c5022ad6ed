#include "runtime/emu_module.hpp"

#include <dlfcn.h>

#include <limits>

#include "runtime/emu/rt/grid.hpp"

namespace hone {

struct EmuModule::Impl {
  void* handle = nullptr;
  void (*invoke)(void**) = nullptr;
  ~Impl() {
    if (handle) dlclose(handle);
  }
};

EmuModule EmuModule::load(const std::filesystem::path& shared_object, const std::string& invoke_symbol) {
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
  EmuModule module;
  module.impl_ = std::move(impl);
  return module;
}

void EmuModule::launch(const LaunchDims& dims, void** args) const {
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
  if (std::string fault = emu::run_grid(impl_->invoke, args, shape); !fault.empty()) throw EmuKernelError(fault);
}

}  // namespace hone
