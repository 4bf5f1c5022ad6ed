#include "tuner/llm/llm_reply.hpp"

#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "core/input_error.hpp"

namespace hone {

namespace {

bool is_identifier(const std::string& s) {
  static const std::regex id("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, id);
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// The JSON text of a reply: the first ```json fence (else the first fence), else the reply.
std::string json_text(const std::string& reply) {
  std::size_t open = reply.find("```json");
  if (open == std::string::npos) open = reply.find("```");
  if (open == std::string::npos) return trim(reply);
  const std::size_t body = reply.find('\n', open);
  if (body == std::string::npos) return trim(reply);
  const std::size_t close = reply.find("```", body + 1);
  return trim(reply.substr(body + 1, close == std::string::npos ? std::string::npos : close - body - 1));
}

// Names of the __global__ functions the source defines.
std::set<std::string> global_functions(const std::string& source) {
  static const std::regex def(
      R"(__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\()");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), def); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

std::optional<LessonProposal> parse_lesson(const nlohmann::json& j, std::string& error) {
  if (!j.is_object()) {
    error = "'lesson' is not an object";
    return std::nullopt;
  }
  LessonProposal l;
  for (const char* f : {"situation", "action"})
    if (j.contains(f) && !j[f].is_string()) {
      error = std::string("lesson.") + f + " is not a string";
      return std::nullopt;
    }
  l.situation = trim(j.value("situation", ""));
  l.action = trim(j.value("action", ""));
  if (j.contains("tags")) {
    if (!j["tags"].is_array()) {
      error = "lesson.tags is not a list";
      return std::nullopt;
    }
    for (const auto& t : j["tags"])
      if (t.is_string()) l.tags.push_back(t.get<std::string>());
  }
  return l;
}

// Parameter names and values from "params"; throws InputError.
ParamSpace parse_params(const nlohmann::json& j, const nlohmann::json& constraints, const OpSpec& op) {
  ParamSpace space;
  if (!j.is_object()) throw InputError("'params' must map each parameter name to a list of integers");
  for (const auto& [name, values] : j.items()) {
    if (!is_identifier(name)) throw InputError("parameter '" + name + "' is not an identifier");
    if (std::find(op.symbols.begin(), op.symbols.end(), name) != op.symbols.end() || op.find_arg(name))
      throw InputError("parameter '" + name + "' has the name of one of the op's symbols or arguments");
    if (!values.is_array() || values.empty()) throw InputError("parameter '" + name + "' needs a non-empty list of values");
    std::vector<std::int64_t> vs;
    for (const auto& v : values) {
      if (!v.is_number_integer()) throw InputError("parameter '" + name + "' has a value that is not an integer");
      vs.push_back(v.get<std::int64_t>());
    }
    space.params.emplace_back(name, std::move(vs));
  }
  if (!constraints.is_null()) {
    if (!constraints.is_array()) throw InputError("'constraints' must be a list of expressions");
    for (const auto& c : constraints) {
      if (!c.is_string()) throw InputError("a constraint is not an expression string");
      try {
        space.constraints.push_back(Expr::parse(c.get<std::string>()));
      } catch (const ExprError& e) {
        throw InputError("constraint '" + c.get<std::string>() + "': " + e.what());
      }
    }
  }
  return space;
}

// Every symbol the launch rule reads must be a shape symbol or a parameter.
void check_launch_symbols(const LaunchRule& launch, const OpSpec& op, const ParamSpace& params) {
  std::set<std::string> known(op.symbols.begin(), op.symbols.end());
  for (const auto& [name, values] : params.params) known.insert(name);
  std::vector<const Expr*> exprs{&launch.smem};
  for (const auto& e : launch.grid) exprs.push_back(&e);
  for (const auto& e : launch.block) exprs.push_back(&e);
  for (const Expr* e : exprs)
    for (const auto& s : e->symbols())
      if (!known.count(s)) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw InputError("the launch rule reads '" + s + "', which is not one of " + list);
      }
}

}  // namespace

ParsedReply parse_llm_reply(const std::string& text, const OpSpec& op) {
  ParsedReply out;
  if (trim(text).empty()) {
    out.error = "the reply is empty";
    return out;
  }
  const std::string body = json_text(text);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    out.error = std::string("the reply is not one JSON object: ") + e.what();
    return out;
  }
  if (!j.is_object()) {
    out.error = "the reply is JSON but not an object";
    return out;
  }
  if (j.contains("lesson") && !j["lesson"].is_null()) out.lesson = parse_lesson(j["lesson"], out.lesson_error);

  if (!j.contains("source") || !j["source"].is_string() || trim(j["source"].get<std::string>()).empty()) {
    out.error = "the reply has no kernel: 'source' is missing or empty";
    return out;
  }
  if (!j.contains("entry") || !j["entry"].is_string() || !is_identifier(j["entry"].get<std::string>())) {
    out.error = "the reply has no 'entry' naming the kernel's extern \"C\" __global__ function";
    return out;
  }
  LlmKernel k;
  k.entry = j["entry"].get<std::string>();
  k.source = j["source"].get<std::string>();
  if (k.source.size() > kMaxLlmSourceBytes) {
    out.error = "the source has " + std::to_string(k.source.size()) + " bytes; at most " +
                std::to_string(kMaxLlmSourceBytes) + " are accepted";
    return out;
  }
  const std::set<std::string> globals = global_functions(k.source);
  if (!globals.count(k.entry)) {
    std::string names;
    for (const auto& g : globals) names += (names.empty() ? "" : ", ") + g;
    out.error = "the reply names the entry '" + k.entry + "', but the source defines no __global__ function of that name" +
                (names.empty() ? "" : " (it defines " + names + ")");
    return out;
  }
  if (k.source.find("extern \"C\"") == std::string::npos) {
    out.error = "the entry '" + k.entry + "' must be declared extern \"C\" (the name is looked up unmangled)";
    return out;
  }
  try {
    if (!j.contains("launch")) throw InputError("the reply has no 'launch' rule");
    k.params = j.contains("params") && !j["params"].is_null() ? parse_params(j["params"], j.value("constraints", nlohmann::json()), op)
                                                               : ParamSpace{};
    k.launch = parse_launch_rule(j["launch"], "reply", "launch");
    check_launch_symbols(k.launch, op, k.params);
  } catch (const InputError& e) {
    out.error = e.what();
    return out;
  }
  out.kernel = std::move(k);
  return out;
}

LlmRendering render_llm_kernel(const OpSpec& op, const LlmKernel& k, const Bindings& shape, std::size_t max) {
  LlmRendering out;
  Bindings fixed;
  for (const auto& [name, value] : shape)
    if (op.is_static(name)) fixed[name] = value;
  std::string last_problem;
  for (const Config& config : k.params.valid_configs(fixed)) {
    if (out.candidates.size() >= max) break;
    Bindings all = shape;
    for (const auto& [name, value] : config) all[name] = value;
    try {
      k.launch.eval(all);
    } catch (const std::exception& e) {
      last_problem = e.what();
      continue;
    }
    Candidate c;
    c.op = op.name;
    c.origin = "llm";
    c.params = config;
    c.entry = k.entry;
    c.launch = k.launch.bind(config);
    if (config.empty()) {
      c.source = k.source;
    } else {
      for (const auto& [name, value] : config) c.source += "#define " + name + " " + std::to_string(value) + "\n";
      c.source += "#line 1\n" + k.source;
    }
    out.candidates.push_back(std::move(c));
  }
  if (out.candidates.empty())
    out.error = k.params.params.empty()
                    ? "the launch rule gives no legal launch at the task's shape: " + last_problem
                    : "no configuration of the reply's params satisfies its constraints and gives a legal launch at the "
                      "task's shape" + (last_problem.empty() ? "" : " (" + last_problem + ")");
  return out;
}

}  // namespace hone
