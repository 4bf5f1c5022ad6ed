#include "serving/cache_export.hpp"

#include <ctime>
#include <map>
#include <set>

#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/op_spec.hpp"
#include "core/paths.hpp"
#include "core/sha256.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "serving/staged_directory.hpp"

namespace hone {

namespace {

using nlohmann::json;

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

bool is_kernel_cache(const std::filesystem::path& dir) {
  try {
    json m = read_json_file(dir / "manifest.json");
    return m.value("format", "") == "hone-kernel-cache";
  } catch (const std::exception&) {
    return false;
  }
}

// The argument layout engines need to build the parameter array, from the op's spec as it is now.
json argument_layout(const std::string& op) {
  json args = json::array();
  try {
    OpSpec spec = load_op(templates_root(), op);
    for (const auto& a : spec.args) {
      json j = {{"name", a.name}, {"type", a.cuda_type()}, {"dtype", dtype_name(a.dtype)}};
      if (a.pointer) {
        j["role"] = a.role == ArgRole::In ? "in" : a.role == ArgRole::Out ? "out" : a.role == ArgRole::InOut ? "inout" : "scratch";
        json dims = json::array();
        for (const auto& d : a.dims) dims.push_back(d.text());
        j["dims"] = dims;
        if (a.role == ArgRole::Scratch) {
          // What an engine allocates for it, once, at the largest shape it serves.
          std::string bytes = std::to_string(dtype_size(a.dtype));
          for (const auto& d : a.dims) bytes += " * (" + d.text() + ")";
          j["bytes"] = bytes;
          if (!a.zeroed.empty()) j["zeroed_bytes"] = std::to_string(dtype_size(a.dtype)) + " * (" + a.zeroed.text() + ")";
        }
      } else {
        j["role"] = "scalar";
        if (!dtype_is_float(a.dtype)) j["value"] = a.int_value.text();
      }
      args.push_back(j);
    }
  } catch (const InputError&) {
    // An op family that is no longer installed: its entries still carry their source and launch rule.
  }
  return args;
}

}  // namespace

ExportSummary export_kernel_cache(const KnowledgeDb& db, const std::filesystem::path& out_dir) {
  const auto winners = db.winners();
  if (winners.empty()) throw input_error(db.file().string(), "holds no winners to export (run hone tune first)");
  StagedDirectory out(out_dir, is_kernel_cache, "exists and is not a hone kernel cache; refusing to replace it");

  ExportSummary summary;
  json entries = json::array();
  std::set<std::string> written;
  std::map<std::string, json> devices;  // by device id and arch: the manifest's summary of where entries were measured
  for (const auto& w : winners) {
    auto task = db.task(w.task_id);
    auto cand = db.candidate(w.candidate_id);
    if (!task || !cand) throw input_error(db.file().string(), "a winner refers to a missing task or candidate");
    auto compile = db.compile(w.candidate_id, task->arch);
    const std::string stem = cand->key.substr(0, 16);

    json files, hashes;
    auto put = [&](const std::string& kind, const std::string& name, const std::string& content) {
      files[kind] = "kernels/" + name;
      hashes[kind] = sha256_hex(content);
      if (written.insert(name).second) {
        out.write("kernels/" + name, content);
        ++summary.files;
      }
    };
    // A vendor library's baseline is no kernel of hone's: its entry names the library, with no files.
    const bool vendor = cand->origin.rfind("vendor:", 0) == 0;
    if (!vendor) put("source", stem + ".cu", cand->source);
    if (!vendor && compile && compile->ok) {
      if (!compile->ptx.empty()) put("ptx", stem + "." + task->arch + ".ptx", compile->ptx);
      if (!compile->cubin.empty()) put("cubin", stem + "." + task->arch + ".cubin", compile->cubin);
    }

    const auto colon = w.device.find(':');
    const json device = {{"id", w.device},
                         {"kind", w.device.substr(0, colon)},
                         {"name", colon == std::string::npos ? "" : w.device.substr(colon + 1)}};
    const std::string timer = w.device.rfind("emu:", 0) == 0 ? "cpu" : "gpu";
    json e = {{"op", task->op},
              {"entry", cand->entry},
              {"static_dims", task->static_dims},
              {"buckets", task->buckets},
              {"scalars", task->scalars},
              {"layers", task->layers},
              {"arch", task->arch},
              {"device", device},
              {"launch", cand->launch},
              {"args", argument_layout(task->op)},
              {"origin", cand->origin},
              {"variant", cand->variant},
              {"params", cand->params},
              {"files", files.is_null() ? json::object() : files},
              {"sha256", hashes.is_null() ? json::object() : hashes},
              {"time_ms", w.shown_ms()},
              {"baseline_ms", w.shown_baseline_ms()},
              {"timed_in_turns", w.timed_in_turns()},
              {"timer", timer}};
    if (!vendor && compile && compile->ok) {
      // What the gate compiles the source with again, to prove the binaries are its own.
      e["build"] = {{"compiler", compile->compiler}, {"options", nvrtc_options(task->arch)}};
      e["resources"] = {{"registers", compile->registers},     {"spill_stores", compile->spill_stores},
                        {"spill_loads", compile->spill_loads}, {"shared_bytes", compile->shared_bytes},
                        {"stack_bytes", compile->stack_bytes}, {"compiler", compile->compiler}};
    }
    entries.push_back(e);
    json d = device;
    d["arch"] = task->arch;
    d["timer"] = timer;
    devices[w.device + " " + task->arch] = d;
    ++summary.entries;
  }
  json device_list = json::array();
  for (const auto& [key, d] : devices) device_list.push_back(d);
  json manifest = {{"format", "hone-kernel-cache"},
                   {"format_version", kCacheFormatVersion},
                   {"hone_version", HONE_VERSION},
                   {"compiler", nvrtc_identity()},
                   {"created_at", utc_now()},
                   {"devices", device_list},
                   {"entries", entries}};
  out.write("manifest.json", manifest.dump(2) + "\n");
  out.commit();
  return summary;
}

}  // namespace hone
