#pragma once
// What `hone gate` hands to CI systems: a Markdown summary (for a pull request or a job summary)
// and JUnit XML (one test case per cache entry, a <failure> for each entry that fails).
#include <string>

#include "gate/cache_gate.hpp"

namespace hone {

std::string gate_markdown(const GateReport& report);
std::string gate_junit(const GateReport& report);

}  // namespace hone
