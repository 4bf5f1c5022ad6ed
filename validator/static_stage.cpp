#include "validator/static_stage.hpp"

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace hone {

std::string signature_check_source(const OpSpec& op, const std::string& entry) {
  std::string types;
  for (size_t i = 0; i < op.args.size(); ++i) types += (i ? ", " : "") + op.args[i].cuda_type();
  return "\n// hone: signature check (NVRTC only)\n"
         "template <class A, class B> struct hone_same_type { static constexpr bool value = false; };\n"
         "template <class A> struct hone_same_type<A, A> { static constexpr bool value = true; };\n"
         "static_assert(hone_same_type<decltype(&" + entry + "), void (*)(" + types + ")>::value,\n"
         "              \"hone: " + entry + " must have the signature of " + op.name + ": void(" + types + ")\");\n";
}

KernelBuildRequest static_build_request(const OpSpec& op, const Candidate& c, const std::string& arch,
                                        const std::string& device_kind) {
  return {c.source, signature_check_source(op, c.entry), c.entry, kernel_param_types(op), arch, device_kind};
}

Verdict static_verdict(const OpSpec& op, const Candidate& c, const KernelBuild& build, const Bindings& shape,
                       const StaticLimits& limits) {
  if (!build.ok()) return Verdict::failed("static", "does not compile: " + build.error());
  auto it = build.nvrtc.usage.find(c.entry);
  if (it == build.nvrtc.usage.end())
    return Verdict::failed("static", "ptxas reported no entry named '" + c.entry + "' (is it extern \"C\" __global__?)");
  const ResourceUsage& u = it->second;

  LaunchDims dims;
  try {
    dims = c.launch.eval(shape);
  } catch (const std::exception& e) {
    return Verdict::failed("static", std::string("launch rule does not evaluate at this shape: ") + e.what());
  }

  Verdict v;
  v.stage = "static";
  v.detail["resources"] = {{"registers", u.registers},     {"spill_stores", u.spill_stores},
                           {"spill_loads", u.spill_loads}, {"shared_bytes", u.shared_bytes},
                           {"stack_bytes", u.stack_bytes}};
  auto fail = [&](std::string why) {
    v.reason = std::move(why);
    return v;
  };
  if (u.registers > limits.max_registers)
    return fail(fmt::format("{} registers per thread (limit {})", u.registers, limits.max_registers));
  if (u.registers * dims.threads_per_block() > limits.registers_per_sm_block)
    return fail(fmt::format("{} registers x {} threads exceeds the {} registers a block may use", u.registers,
                            dims.threads_per_block(), limits.registers_per_sm_block));
  if (u.spill_stores + u.spill_loads > limits.max_spill_bytes)
    return fail(fmt::format("spills {} bytes stored and {} loaded (limit {})", u.spill_stores, u.spill_loads,
                            limits.max_spill_bytes));
  if (u.stack_bytes > limits.max_stack_bytes)
    return fail(fmt::format("{} bytes of stack per thread (limit {})", u.stack_bytes, limits.max_stack_bytes));
  if (u.shared_bytes + dims.smem > limits.max_shared_bytes)
    return fail(fmt::format("{} bytes of shared memory ({} static + {} dynamic; limit {})", u.shared_bytes + dims.smem,
                            u.shared_bytes, dims.smem, limits.max_shared_bytes));
  v.pass = true;
  return v;
}

}  // namespace hone
