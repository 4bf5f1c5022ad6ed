#pragma once
// The template proposer: the valid configurations of an op's variant templates at a shape, and
// each one rendered into a self-contained candidate.
#include <vector>

#include "core/candidate.hpp"
#include "core/op_spec.hpp"

namespace hone {

struct TemplatePoint {
  const Variant* variant = nullptr;
  Config config;
};

/// Every configuration of every variant that applies at `shape` (its "when") and satisfies its
/// constraints there, and whose launch rule gives a legal launch there, in a fixed order. Variants
/// over thread-block clusters only where the architecture has them (`arch`: "sm_90", 90 up).
std::vector<TemplatePoint> template_space(const OpSpec& op, const Bindings& shape, const std::string& arch = "sm_90");

/// The variant's source followed by an extern "C" __global__ wrapper with the op's signature
/// that instantiates the template for this configuration; parameters bound in the launch rule.
Candidate render_template(const OpSpec& op, const Variant& variant, const Config& config, const Bindings& shape);

}  // namespace hone
