#include "tuner/task.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/sha256.hpp"

namespace hone {

std::string Task::key() const {
  nlohmann::json j;
  j["op"] = op;
  j["static"] = static_dims;
  for (const auto& [k, b] : buckets) j["buckets"][k] = {b.lo, b.hi};
  j["scalars"] = scalars;
  j["arch"] = arch;
  return sha256_hex(j.dump());
}

std::string Task::label() const {
  std::string s = op;
  for (const auto& [k, v] : static_dims) s += " " + k + "=" + std::to_string(v);
  for (const auto& [k, b] : buckets) s += " " + k + "=" + (b.lo == b.hi ? std::to_string(b.hi) : std::to_string(b.lo) + ".." + std::to_string(b.hi));
  return s;
}

std::vector<Task> tasks_from_model(const ModelShapes& model, const std::filesystem::path& templates_root,
                                   const std::set<std::string>& only, const std::string& arch) {
  const std::string file = model.file.string();
  std::set<std::string> families;
  for (const auto& f : list_op_families(templates_root)) families.insert(f);
  for (const auto& o : only)
    if (!families.count(o)) throw InputError("--ops names '" + o + "', which is not an op family");

  std::map<std::string, OpSpec> specs;
  std::vector<Task> tasks;
  std::map<std::string, std::size_t> by_key;

  // Every combination of the buckets of the model's dynamic dims that `mop` uses (tokens, and the
  // context length for attention): an op that does not read a dim gets no task per its buckets.
  auto combos_of = [&](const ModelOp& mop) {
    std::set<std::string> used;
    for (const auto& [s, e] : mop.dims)
      for (const auto& sym : e.symbols()) used.insert(sym);
    std::vector<std::map<std::string, Bucket>> combos{{}};
    for (const auto& d : model.dynamic) {
      if (!used.count(d.name)) continue;
      std::vector<std::map<std::string, Bucket>> next;
      for (const auto& c : combos)
        for (const auto& b : d.buckets) {
          auto n = c;
          n[d.name] = b;
          next.push_back(std::move(n));
        }
      combos = std::move(next);
    }
    return combos;
  };

  for (std::size_t i = 0; i < model.ops.size(); ++i) {
    const ModelOp& mop = model.ops[i];
    const std::string where = "ops[" + std::to_string(i) + "] (" + mop.name + ")";
    if (!families.count(mop.op)) throw input_error(file, where + ": no op family '" + mop.op + "' in " + templates_root.string());
    if (!only.empty() && !only.count(mop.op)) continue;
    if (!specs.count(mop.op)) specs.emplace(mop.op, load_op(templates_root, mop.op));
    const OpSpec& spec = specs.at(mop.op);

    for (const auto& s : spec.symbols)
      if (!mop.dims.count(s)) throw input_error(file, where + ": dims lack '" + s + "', a symbol of " + spec.name);
    for (const auto& [s, e] : mop.dims) {
      if (std::find(spec.symbols.begin(), spec.symbols.end(), s) == spec.symbols.end())
        throw input_error(file, where + ": dims give '" + s + "', which is not a symbol of " + spec.signature());
      if (spec.is_static(s) && !e.symbols().empty())
        throw input_error(file, where + ": '" + s + "' is static in " + spec.name + " but given as '" + e.text() + "'");
    }
    for (const auto& [k, v] : mop.scalars) {
      const ArgSpec* a = spec.find_arg(k);
      if (!a || a->pointer || !dtype_is_float(a->dtype))
        throw input_error(file, where + ": scalars." + k + " is not a float scalar argument of " + spec.name);
    }

    for (const auto& combo : combos_of(mop)) {
      Bindings lo, hi;
      for (const auto& [name, b] : combo) {
        lo[name] = b.lo;
        hi[name] = b.hi;
      }
      Task t;
      t.op = spec.name;
      t.arch = arch;
      t.scalars = mop.scalars;
      for (const auto& [s, e] : mop.dims) {
        std::int64_t at_lo, at_hi;
        try {
          at_lo = e.eval(lo);
          at_hi = e.eval(hi);
        } catch (const ExprError& err) {
          throw input_error(file, where + ".dims." + s + ": " + err.what());
        }
        if (spec.flags.count(s)) {
          if (at_lo != at_hi || at_hi < 0 || at_hi > 1) throw input_error(file, where + ".dims." + s + " is a flag of " + spec.name + ": 0 or 1");
        } else if (at_lo <= 0 || at_hi <= 0) {
          throw input_error(file, where + ".dims." + s + " is not positive at every bucket");
        }
        if (spec.is_static(s)) t.static_dims[s] = at_hi;
        else t.buckets[s] = {at_lo, at_hi};
        t.shape[s] = at_hi;
      }
      const std::string layer = model.model + "/" + mop.name;
      auto [it, fresh] = by_key.emplace(t.key(), tasks.size());
      if (fresh) {
        t.layers.push_back(layer);
        tasks.push_back(std::move(t));
      } else if (std::find(tasks[it->second].layers.begin(), tasks[it->second].layers.end(), layer) ==
                 tasks[it->second].layers.end()) {
        tasks[it->second].layers.push_back(layer);
      }
    }
  }
  return tasks;
}

}  // namespace hone
