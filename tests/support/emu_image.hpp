#pragma once
// A kernel source compiled for emu, as the image an emu device loads; the test fails with the
// compiler's log when it does not compile.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/device.hpp"
#include "runtime/emu_compiler.hpp"

namespace hone::test {

inline KernelImage emu_image(const std::string& source, const std::string& entry, const std::vector<std::string>& param_types) {
  const EmuBuild b = compile_for_emu({source, entry, param_types, 900});
  INFO("compiler log:\n" << b.log);
  REQUIRE(b.ok);
  KernelImage image;
  image.entry = entry;
  image.emu_object = b.shared_object;
  image.emu_invoke = b.invoke_symbol;
  return image;
}

}  // namespace hone::test
