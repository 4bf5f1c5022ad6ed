#pragma once
// Helpers shared by the emu tests: build a kernel from tests/data/emu, pack launch arguments.
#include <doctest/doctest.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/device.hpp"
#include "runtime/emu_compiler.hpp"
#include "runtime/emu_module.hpp"
#include "support/emu_image.hpp"

namespace hone::emu_test {

inline std::string read_kernel(const std::string& file) {
  std::ifstream in(std::string(HONE_TEST_DATA_DIR) + "/emu/" + file);
  REQUIRE_MESSAGE(in.good(), "missing test kernel " << file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Compiles `entry` of tests/data/emu/<file> for emu and loads it; the test fails with the
/// compiler's log when it does not compile.
inline EmuModule build(const std::string& file, const std::string& entry, const std::vector<std::string>& types) {
  const EmuBuild b = compile_for_emu({read_kernel(file), entry, types, 900});
  INFO("compiler log:\n" << b.log);
  REQUIRE(b.ok);
  return EmuModule::load(b.shared_object, b.invoke_symbol);
}

/// The same, as the image an emu device loads.
inline KernelImage build_image(const std::string& file, const std::string& entry, const std::vector<std::string>& types) {
  return test::emu_image(read_kernel(file), entry, types);
}

inline LaunchDims dims(std::array<std::int64_t, 3> grid, std::array<std::int64_t, 3> block, std::int64_t smem = 0) {
  LaunchDims d;
  d.grid = grid;
  d.block = block;
  d.smem = smem;
  return d;
}

/// The reason of the EmuKernelError a launch throws ("" if it does not throw).
inline std::string fault_of(const EmuModule& m, const LaunchDims& d, void** a, std::uint64_t schedule_seed = 0) {
  try {
    m.launch(d, a, schedule_seed);
  } catch (const EmuKernelError& e) {
    return e.what();
  }
  return "";
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// args(a, b, c).data() is the void** a launch takes: pointers to the argument values.
template <class... T>
std::array<void*, sizeof...(T)> args(T&... values) {
  return {static_cast<void*>(&values)...};
}

}  // namespace hone::emu_test
