#include "gate/gate_output.hpp"

#include <fmt/format.h>

#include "core/xml_escape.hpp"

namespace hone {

namespace {

// A Markdown table cell: pipes and newlines would end the cell or the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string time_text(const GateEntryResult& e) {
  if (e.time_ms <= 0) return "-";
  std::string s = fmt::format("{:.4g} ms ({})", e.time_ms, e.timer);
  if (e.baseline_ms > 0) s += fmt::format(" vs {:.4g} ms, {:.2f}x", e.baseline_ms, e.time_ms / e.baseline_ms);
  else if (e.recorded_ms > 0) s += fmt::format("; recorded {:.4g} ms", e.recorded_ms);
  return s;
}

}  // namespace

std::string gate_markdown(const GateReport& r) {
  std::string md = fmt::format("## hone gate: {}\n\n", r.pass() ? "PASS" : "FAIL");
  md += fmt::format("{} of {} entries pass on device `{}`; cache `{}`", r.entries.size() - r.failures(), r.entries.size(), r.device, r.cache);
  if (!r.baseline.empty()) md += fmt::format(", baseline `{}`", r.baseline);
  md += fmt::format(", allowed slowdown {:g}%.", r.max_regression_pct);
  if (r.shard.count > 1) md += " This run is " + r.checked() + "; the other shards check the rest.";
  if (r.device == "emu") md += " Times on emu are CPU times of the emulated kernels: reported, never gated.";
  md += "\n\n| result | entry | kernel | validation | binaries | resources | time |\n|---|---|---|---|---|---|---|\n";
  for (const auto& e : r.entries)
    md += fmt::format("| {} | {} | `{}` | {} | {} | {} | {} |\n", e.pass() ? "pass" : "**FAIL**", cell(e.name), cell(e.entry),
                      cell(e.validation), cell(e.binaries.empty() ? "-" : e.binaries), cell(e.resources.empty() ? "-" : e.resources),
                      cell(time_text(e)));
  bool any = false;
  for (const auto& e : r.entries) {
    if (e.pass()) continue;
    if (!any) md += "\n### Failures\n\n";
    any = true;
    for (const auto& f : e.failures) md += fmt::format("- {} (`{}`): {}\n", e.name, e.entry, f);
  }
  return md;
}

std::string gate_junit(const GateReport& r) {
  double total = 0;
  for (const auto& e : r.entries) total += e.seconds;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"hone gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n", r.entries.size(),
                   r.failures(), total);
  x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3f}\">\n",
                   xml_escape("hone gate " + r.cache), r.entries.size(), r.failures(), total);
  x += "    <properties>\n";
  x += fmt::format("      <property name=\"device\" value=\"{}\"/>\n", xml_escape(r.device));
  x += fmt::format("      <property name=\"baseline\" value=\"{}\"/>\n", xml_escape(r.baseline));
  x += fmt::format("      <property name=\"max_regression_pct\" value=\"{:g}\"/>\n", r.max_regression_pct);
  x += fmt::format("      <property name=\"shard\" value=\"{}/{}\"/>\n", r.shard.index, r.shard.count);
  x += "    </properties>\n";
  for (const auto& e : r.entries) {
    x += fmt::format("    <testcase classname=\"hone.gate.{}\" name=\"{}\" time=\"{:.3f}\">\n", xml_escape(e.op),
                     xml_escape(e.name + " (" + e.entry + ", " + e.arch + ")"), e.seconds);
    if (!e.pass()) {
      std::string body;
      for (const auto& f : e.failures) body += f + "\n";
      const std::string& first = e.failures.front();
      const char* type = first.rfind("wrong", 0) == 0      ? "wrong"
                         : first.rfind("slower", 0) == 0   ? "slower"
                         : first.rfind("binaries", 0) == 0 ? "binaries"
                                                            : "resources";
      x += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", xml_escape(first), type, xml_escape(body));
    }
    x += fmt::format("      <system-out>{}</system-out>\n",
                     xml_escape("validation: " + e.validation + "\nbinaries: " + e.binaries + "\nresources: " + e.resources +
                                "\ntime: " + time_text(e) +
                                (e.timing.empty() ? "" : "\ntiming: " + e.timing)));
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace hone
