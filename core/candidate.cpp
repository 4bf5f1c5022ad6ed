#include "core/candidate.hpp"

#include "core/sha256.hpp"

namespace hone {

std::string Candidate::key() const {
  return sha256_hex(op + '\n' + entry + '\n' + launch.to_json().dump() + '\n' + source);
}

std::string Candidate::label() const {
  if (origin == "template") return variant + (params.empty() ? "" : " " + config_to_string(params));
  return origin + " " + entry;
}

Candidate reference_candidate(const OpSpec& op) {
  Candidate c;
  c.op = op.name;
  c.origin = "reference";
  c.entry = op.reference.entry;
  c.source = op.reference.source.text;
  c.launch = op.reference.launch;
  return c;
}

std::vector<std::string> kernel_param_types(const OpSpec& op) {
  std::vector<std::string> out;
  for (const auto& a : op.args) out.push_back(a.cuda_type());
  return out;
}

}  // namespace hone
