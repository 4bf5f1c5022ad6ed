#include "validator/build_wire.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hone {

namespace {

using json = nlohmann::json;

// Bytes travel as CBOR byte strings: never checked or rewritten as text.
json bytes(const std::string& s) { return json::binary(json::binary_t::container_type(s.begin(), s.end())); }

std::string text_of(const json& j, const char* key) {
  const json& v = j.at(key);
  if (v.is_binary()) return std::string(v.get_binary().begin(), v.get_binary().end());
  return v.get<std::string>();
}

json nvrtc_to_json(const NvrtcResult& r) {
  json usage = json::object();
  for (const auto& [entry, u] : r.usage)
    usage[entry] = {u.registers, u.spill_stores, u.spill_loads, u.shared_bytes, u.stack_bytes, u.barriers, u.const_bytes};
  return {{"ok", r.ok},     {"log", bytes(r.log)},     {"ptx", bytes(r.ptx)},
          {"cubin", bytes(r.cubin)}, {"usage", usage}, {"compile_ms", r.compile_ms}};
}

NvrtcResult nvrtc_from_json(const json& j) {
  NvrtcResult r;
  r.ok = j.at("ok").get<bool>();
  r.log = text_of(j, "log");
  r.ptx = text_of(j, "ptx");
  r.cubin = text_of(j, "cubin");
  r.compile_ms = j.at("compile_ms").get<double>();
  for (const auto& [entry, u] : j.at("usage").items()) {
    const auto v = u.get<std::vector<int>>();
    if (v.size() != 7) throw std::runtime_error("resource usage of '" + entry + "' has " + std::to_string(v.size()) + " fields");
    r.usage[entry] = {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
  }
  return r;
}

template <class F>
auto decode(const std::string& bytes, const char* what, F&& read) {
  try {
    return read(json::from_cbor(bytes));
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("not a ") + what + ": " + e.what());
  }
}

}  // namespace

std::string encode_build_request(const WireBuildRequest& w) {
  const KernelBuildRequest& r = w.request;
  json j = {{"source", bytes(r.source)}, {"nvrtc_suffix", bytes(r.nvrtc_suffix)}, {"entry", r.entry},
            {"param_types", r.param_types}, {"arch", r.arch},                     {"device_kind", r.device_kind}};
  if (w.known_nvrtc) j["known_nvrtc"] = nvrtc_to_json(*w.known_nvrtc);
  const auto cbor = json::to_cbor(j);
  return std::string(cbor.begin(), cbor.end());
}

WireBuildRequest decode_build_request(const std::string& bytes) {
  return decode(bytes, "build request", [](const json& j) {
    WireBuildRequest w;
    w.request.source = text_of(j, "source");
    w.request.nvrtc_suffix = text_of(j, "nvrtc_suffix");
    w.request.entry = j.at("entry").get<std::string>();
    w.request.param_types = j.at("param_types").get<std::vector<std::string>>();
    w.request.arch = j.at("arch").get<std::string>();
    w.request.device_kind = j.at("device_kind").get<std::string>();
    if (j.contains("known_nvrtc")) w.known_nvrtc = nvrtc_from_json(j["known_nvrtc"]);
    return w;
  });
}

std::string encode_kernel_build(const KernelBuild& b) {
  json j = {{"nvrtc", nvrtc_to_json(b.nvrtc)},
            {"for_emu", b.for_emu},
            {"emu",
             {{"ok", b.emu.ok},
              {"log", bytes(b.emu.log)},
              {"shared_object", b.emu.shared_object.string()},
              {"invoke_symbol", b.emu.invoke_symbol},
              {"compile_ms", b.emu.compile_ms},
              {"cached", b.emu.cached}}},
            {"image",
             {{"entry", b.image.entry},
              {"emu_object", b.image.emu_object.string()},
              {"emu_invoke", b.image.emu_invoke}}}};
  const auto cbor = json::to_cbor(j);
  return std::string(cbor.begin(), cbor.end());
}

KernelBuild decode_kernel_build(const std::string& bytes) {
  return decode(bytes, "kernel build", [](const json& j) {
    KernelBuild b;
    b.nvrtc = nvrtc_from_json(j.at("nvrtc"));
    b.for_emu = j.at("for_emu").get<bool>();
    const json& e = j.at("emu");
    b.emu.ok = e.at("ok").get<bool>();
    b.emu.log = text_of(e, "log");
    b.emu.shared_object = e.at("shared_object").get<std::string>();
    b.emu.invoke_symbol = e.at("invoke_symbol").get<std::string>();
    b.emu.compile_ms = e.at("compile_ms").get<double>();
    b.emu.cached = e.at("cached").get<bool>();
    const json& i = j.at("image");
    b.image.entry = i.at("entry").get<std::string>();
    b.image.emu_object = i.at("emu_object").get<std::string>();
    b.image.emu_invoke = i.at("emu_invoke").get<std::string>();
    // The image's device code is the compile's own: not sent twice.
    b.image.ptx = b.nvrtc.ptx;
    b.image.cubin = b.nvrtc.cubin;
    return b;
  });
}

}  // namespace hone
