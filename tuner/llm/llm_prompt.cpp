#include "tuner/llm/llm_prompt.hpp"

#include <fmt/format.h>

namespace hone {

namespace {

const char* const kSystem =
    "You write CUDA C++ kernels for hone, a tool that specialises kernels to a model's real shapes. "
    "Every kernel you write is compiled with NVRTC for the target architecture and, on machines without a GPU, run "
    "by hone's CPU emulator; it is checked against the reference kernel on random inputs, on hidden tests you do not "
    "see (other sizes inside the bucket, extreme values), for consistency (inputs unchanged, nothing written outside "
    "the outputs, the same result on a second run in another schedule), then timed. A kernel that fails any check is "
    "rejected, however fast.\n"
    "Your source is untrusted and must keep to an allow-list, checked before it is compiled: #include only CUDA headers "
    "(cuda_bf16.h, cuda_fp16.h, cooperative_groups.h and the like); no host functions or interfaces (files, "
    "processes, sockets, the environment, memory mapping); no inline assembly; no kernel launches from the device; no "
    "__device__ or __managed__ variables at namespace scope (no state between launches). The entry must be an "
    "extern \"C\" __global__ function with exactly the op's signature.\n"
    "Answer with one JSON object and nothing else (a ```json fence around it is fine):\n"
    "{\"entry\": \"<the extern C __global__ function>\", \"source\": \"<the whole .cu source>\", "
    "\"launch\": {\"grid\": [\"E\", \"E\", \"E\"], \"block\": [\"E\", \"E\", \"E\"], \"smem\": \"E\"}, "
    "\"params\": {\"NAME\": [values, ...]}, \"lesson\": {\"situation\": \"...\", \"action\": \"...\", \"tags\": "
    "[\"op/...\", \"technique/...\"]}}\n"
    "Each E is an integer expression (C operators, ceil_div(a,b), min(...), max(...)) of the shape symbols and, with "
    "params, of the parameter names; smem is dynamic shared memory in bytes. \"params\" is optional: hone then tries "
    "each combination of values, with `#define NAME value` placed before your source. \"lesson\" is optional and is "
    "about your previous measured attempt: when to do what, in one sentence each.";

std::string role_text(ArgRole r) {
  switch (r) {
    case ArgRole::In: return "input";
    case ArgRole::Out: return "output";
    case ArgRole::InOut: return "input and output";
    case ArgRole::Scalar: return "scalar";
    case ArgRole::Scratch: return "scratch (workspace: garbage on entry, never compared)";
  }
  return "";
}

std::string contract(const PromptInput& in) {
  const OpSpec& op = *in.op;
  const Task& t = *in.task;
  std::string s = "## The op: " + op.name + "\n" + op.summary + "\n\nSignature (row-major buffers):\nextern \"C\" __global__ void <entry>(";
  for (std::size_t i = 0; i < op.args.size(); ++i) s += (i ? ", " : "") + op.args[i].cuda_declaration();
  s += ")\n";
  for (const auto& a : op.args) {
    s += "- " + a.name + ": " + role_text(a.role);
    if (a.pointer) {
      std::string dims;
      for (const auto& d : a.dims) dims += (dims.empty() ? "" : ", ") + d.text();
      s += ", [" + dims + "]";
    } else if (!a.int_value.empty()) {
      s += " = " + a.int_value.text();
    }
    s += "\n";
  }
  for (const auto& [out, input] : op.aliases)
    s += "- '" + out + "' may be the same buffer as '" + input + "' (engines call it in place): it must be right both ways\n";
  for (const auto& [dtype, tol] : op.tolerance)
    s += fmt::format("Outputs of {} must match the reference within {} + {} * |expected|{}.\n", dtype_name(dtype), tol.atol,
                     tol.rtol, tol.row_rtol > 0 ? fmt::format(" + {} * rms(the expected row)", tol.row_rtol) : "");

  s += "\n## The task\n";
  std::string fixed, dynamic;
  for (const auto& [k, v] : t.static_dims) fixed += (fixed.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  for (const auto& [k, b] : t.buckets)
    dynamic += fmt::format("{}{} anywhere in {}..{} (tuned and timed at {})", dynamic.empty() ? "" : "; ", k, b.lo, b.hi,
                           t.shape.count(k) ? t.shape.at(k) : b.hi);
  s += "Static (you may hard-code them): " + (fixed.empty() ? std::string("none") : fixed) + "\n";
  if (!dynamic.empty()) s += "Dynamic (the kernel must be right for every value): " + dynamic + "\n";
  for (const auto& [k, v] : t.scalars) s += fmt::format("Scalar {} = {} (passed as the argument)\n", k, v);
  s += fmt::format("Architecture {}; limits: at most {} registers per thread, no register spills, at most {} bytes of "
                   "stack per thread, at most {} bytes of shared memory (static + dynamic), at most 1024 threads per "
                   "block.\n",
                   t.arch, in.limits.max_registers, in.limits.max_stack_bytes, in.limits.max_shared_bytes);
  if (in.device.kind == "emu")
    s += "Device: emu (" + in.device.name +
         "): kernels run on hone's CPU emulator, one fiber per CUDA thread; times are CPU times, so fewer threads and "
         "less synchronisation pay off more than on a GPU.\n";
  else
    s += "Device: " + in.device.id() + "\n";
  return s;
}

std::string reference(const PromptInput& in) {
  const OpSpec& op = *in.op;
  std::string s = "\n## Reference kernel (correct, slow)";
  if (in.reference_ms > 0) s += fmt::format(": {:.4f} ms", in.reference_ms);
  s += "\nlaunch: " + op.reference.launch.to_json().dump() + "\n```cuda\n" + op.reference.source.text + "\n```\n";
  return s;
}

std::string best_kernel(const PromptInput& in, bool with_source) {
  if (!in.best) return "\n## Best correct kernel so far\nNone besides the reference.\n";
  const PromptKernel& b = *in.best;
  std::string s = "\n## Best correct kernel so far: " + b.label + "\n";
  s += fmt::format("time {:.4f} ms", b.time_ms);
  if (in.reference_ms > 0 && b.time_ms > 0) s += fmt::format(" ({:.2f}x the reference)", in.reference_ms / b.time_ms);
  s += b.roofline ? fmt::format("; {:.0f}% of the memory roofline", *b.roofline * 100)
                  : std::string("; roofline fraction unknown on this device");
  if (b.resources.is_object() && !b.resources.empty()) s += "; resources " + b.resources.dump();
  s += "\nlaunch: " + b.launch.dump() + "\n";
  if (with_source) s += "```cuda\n" + b.source + "\n```\n";
  else s += "(source left out for the prompt's size)\n";
  return s;
}

std::string lessons(const std::vector<LessonHit>& hits, std::size_t count) {
  if (count == 0) return "";
  std::string s = "\n## Lessons from earlier tuning (best first)\n";
  for (std::size_t i = 0; i < count; ++i) {
    const LessonRecord& l = hits[i].lesson;
    std::string tags;
    for (const auto& t : l.tags) tags += (tags.empty() ? "" : ", ") + t;
    s += fmt::format("- When {}: {} [{}; confidence {:.2f}]\n", l.situation, l.action, tags, l.confidence);
  }
  return s;
}

std::string notes(const std::vector<std::string>& all, std::size_t first, std::size_t max_note_chars) {
  if (first >= all.size()) return "";
  std::string s = "\n## Your recent attempts (oldest first)\n";
  for (std::size_t i = first; i < all.size(); ++i) {
    std::string n = all[i];
    if (n.size() > max_note_chars) n = n.substr(0, max_note_chars) + " [...]";
    s += "- " + n + "\n";
  }
  return s;
}

std::string closing(const PromptInput& in) {
  std::string s = "\n## This attempt\n";
  s += fmt::format("Attempt {} of {}. ", in.attempt, in.attempts);
  s += in.best ? "Make a kernel faster than the best one above, or fix what went wrong in your recent attempts."
               : "Make a correct kernel faster than the reference.";
  if (!in.lesson_subject.empty())
    s += "\nAlso propose a \"lesson\" about your previous measured attempt (" + in.lesson_subject +
         "): the situation it applies to and the action to take, in one sentence each.";
  return s + "\n";
}

}  // namespace

std::size_t Prompt::chars() const {
  std::size_t n = 0;
  for (const auto& m : messages) n += m.content.size();
  return n;
}

nlohmann::json Prompt::to_json() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& m : messages) j.push_back({{"role", m.role}, {"content", m.content}});
  return j;
}

std::string Prompt::text() const {
  std::string s;
  for (const auto& m : messages) s += "--- " + m.role + " ---\n" + m.content + (m.content.empty() || m.content.back() == '\n' ? "" : "\n");
  return s;
}

Prompt build_prompt(const PromptInput& in) {
  const std::string fixed = contract(in) + reference(in);
  const std::string end = closing(in);
  std::size_t lesson_count = in.lessons.size();
  std::size_t first_note = 0;
  bool best_source = true;
  std::size_t note_chars = 2000;
  auto user = [&] {
    return fixed + best_kernel(in, best_source) + lessons(in.lessons, lesson_count) + notes(in.notes, first_note, note_chars) + end;
  };
  const std::size_t system = std::string(kSystem).size();
  auto fits = [&] { return system + user().size() <= in.budget_chars; };
  // What to give up first when the prompt is too long: the least relevant lessons, the oldest
  // notes (the latest one stays: it says what to fix), the best kernel's source, and then the
  // length of each note.
  while (!fits()) {
    if (lesson_count > 0) --lesson_count;
    else if (first_note + 1 < in.notes.size()) ++first_note;
    else if (best_source && in.best) best_source = false;
    else if (note_chars > 200) note_chars /= 2;
    else break;
  }
  Prompt p;
  std::string u = user();
  if (system + u.size() > in.budget_chars) {
    // Only the contract and the reference are left and they alone are too long: cut, keeping the end.
    const std::size_t keep = in.budget_chars > system + end.size() ? in.budget_chars - system - end.size() : 0;
    u = u.substr(0, std::min(keep, u.size() - end.size())) + end;
  }
  p.messages = {{"system", kSystem}, {"user", u}};
  for (std::size_t i = 0; i < lesson_count; ++i) p.lesson_ids.push_back(in.lessons[i].lesson.id);
  p.lessons_dropped = in.lessons.size() - lesson_count;
  p.notes_dropped = first_note;
  p.best_source_dropped = in.best && !best_source;
  return p;
}

}  // namespace hone
