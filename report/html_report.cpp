#include "report/html_report.hpp"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>

#include "core/json_file.hpp"
#include "core/xml_escape.hpp"
#include "report/svg_chart.hpp"

namespace hone {

namespace {

const char* kStyle = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; margin: 0; background: #f4f6f9; }
header, section, footer { max-width: 1360px; margin: 0 auto; padding: 12px 24px; }
header h1 { margin: 12px 0 4px; font-size: 26px; }
h2 { font-size: 18px; margin: 8px 0; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.meta { color: #5b6475; font-weight: normal; font-size: 13px; }
.warn { background: #fff4e0; border-left: 4px solid #e67e22; padding: 6px 10px; }
section.task { background: #fff; border: 1px solid #dde2ea; border-radius: 6px; margin: 16px auto; }
.charts { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; }
figcaption { font-weight: 600; margin-bottom: 4px; }
.note { color: #5b6475; font-size: 12px; max-width: 440px; margin: 4px 0; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid #e3e7ee; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #1e7b34; } .fail { color: #b03a2e; }
svg.chart { background: #fbfcfe; border: 1px solid #e3e7ee; }
svg .grid { stroke: #e6e9ef; } svg .axis { stroke: #8a93a3; }
svg .tick { font-size: 11px; fill: #4a5263; } svg .label { font-size: 12px; fill: #1d2330; }
svg .best { fill: none; stroke: #1f4e9c; stroke-width: 2; }
svg .reference { stroke: #e67e22; stroke-dasharray: 5 4; stroke-width: 1.5; }
svg path.fail { stroke: #c0392b; stroke-width: 2; fill: none; }
ul.lessons li { margin-bottom: 4px; } .tag { background: #eef1f6; border-radius: 3px; padding: 0 4px; font-size: 12px; }
)";

std::string esc(const std::string& s) { return xml_escape(s); }

std::string ms(double v) { return v > 0 ? fmt::format("{:.4g} ms", v) : "-"; }

const char* stage_color(const std::string& stage) {
  if (stage == "pass") return "#2ca02c";
  if (stage == "static") return "#8c564b";
  if (stage == "load") return "#9467bd";
  if (stage == "reference") return "#d62728";
  if (stage == "hidden") return "#e377c2";
  if (stage == "consistency") return "#ff7f0e";
  if (stage == "timing") return "#bcbd22";
  return "#7f7f7f";
}

std::string best_chart(const TaskReport& t) {
  LineChart c;
  c.x_label = "evaluation";
  c.y_label = "time (ms, " + t.timer + ")";
  for (const auto& e : t.evaluations) {
    if (e.pass && e.time_ms > 0) {
      c.dots.push_back({static_cast<double>(e.number), e.time_ms, "#7aa6d6", fmt::format("#{} {}: {:.4g} ms", e.number, e.label, e.time_ms)});
      c.step_line.push_back({static_cast<double>(e.number), e.best_ms});
    } else if (!e.pass) {
      c.failures.push_back({static_cast<double>(e.number), 0, "", fmt::format("#{} {}: failed at {}", e.number, e.label, e.stage)});
    } else if (e.best_ms > 0) {
      c.step_line.push_back({static_cast<double>(e.number), e.best_ms});
    }
  }
  if (!c.step_line.empty() && !t.evaluations.empty()) c.step_line.push_back({static_cast<double>(t.evaluations.size()), c.step_line.back().second});
  c.reference_y = t.baseline_ms;
  c.reference_label = fmt::format("baseline {:.3g} ms", t.baseline_ms);
  return svg_line_chart(c);
}

std::string winner_chart(const TaskReport& t) {
  BarChart c;
  if (!t.baseline_entry.empty()) {
    c.bars.push_back({"entry: the baseline", t.winner_ms, "#e67e22", ms(t.winner_ms) + " (" + t.baseline_entry + ": no candidate beat it)"});
  } else {
    if (t.baseline_ms > 0) c.bars.push_back({"baseline", t.baseline_ms, "#e67e22", ms(t.baseline_ms) + " (the fastest baseline)"});
  }
  if (t.winner_ms > 0 && t.baseline_entry.empty())
    c.bars.push_back({"winner", t.winner_ms, "#1f4e9c",
                      ms(t.winner_ms) + (t.baseline_ms > 0 ? fmt::format(" ({:.2f}x)", t.baseline_ms / t.winner_ms) : "")});
  if (t.roofline.floor_ms > 0)
    c.bars.push_back({"roofline floor", t.roofline.floor_ms, "#2ca02c",
                      ms(t.roofline.floor_ms) + (t.winner_ms > 0 ? fmt::format(" ({:.0f}% of it)", t.roofline.floor_ms / t.winner_ms * 100) : "")});
  if (c.bars.empty()) return "<p class=\"note\">no winner on this device</p>";
  return svg_bar_chart(c);
}

std::string stage_chart(const TaskReport& t) {
  BarChart c;
  for (const auto& stage : report_stage_order()) {
    auto it = t.outcomes.find(stage);
    if (it == t.outcomes.end()) continue;
    c.bars.push_back({stage == "pass" ? "passed" : "failed: " + stage, static_cast<double>(it->second), stage_color(stage),
                      std::to_string(it->second)});
  }
  for (const auto& [stage, n] : t.outcomes)
    if (std::find(report_stage_order().begin(), report_stage_order().end(), stage) == report_stage_order().end())
      c.bars.push_back({"failed: " + stage, static_cast<double>(n), stage_color(stage), std::to_string(n)});
  if (c.bars.empty()) return "<p class=\"note\">no evaluations</p>";
  return svg_bar_chart(c);
}

std::string roofline_note(const TaskReport& t) {
  const Roofline& r = t.roofline;
  if (!r.known) return r.note;
  std::string s = fmt::format("{:.4g} bytes and {:.4g} flops per launch ({:.3g} flops per byte)", r.bytes, r.flops,
                              r.bytes > 0 ? r.flops / r.bytes : 0.0);
  if (t.winner_ms > 0)
    s += fmt::format("; the winner moves {:.3g} GB/s and does {:.3g} GFLOP/s", r.bytes / (t.winner_ms * 1e-3) * 1e-9,
                     r.flops / (t.winner_ms * 1e-3) * 1e-9);
  if (!r.note.empty()) s += ". " + r.note;
  return s + ".";
}

std::string task_section(const TaskReport& t, std::size_t index) {
  std::string h = fmt::format("<section class=\"task\" id=\"task-{}\">\n<h2>{} <span class=\"meta\">{} &middot; {} &middot; {} times</span></h2>\n",
                              index, esc(t.label), esc(t.arch), esc(t.device), esc(t.timer));
  if (!t.layers.empty()) {
    std::string layers;
    for (const auto& l : t.layers) layers += (layers.empty() ? "" : ", ") + l;
    h += "<p class=\"meta\">serves " + esc(layers) + "</p>\n";
  }
  h += "<div class=\"charts\">\n";
  h += "<figure><figcaption>Best time against evaluations</figcaption>" + best_chart(t) +
       "<p class=\"note\">dots: passing candidates; line: best so far; crosses: failed candidates; dashed: the baseline.</p></figure>\n";
  h += "<figure><figcaption>Winner against baseline and roofline</figcaption>" + winner_chart(t) + "<p class=\"note\">" +
       esc((t.timed_in_turns ? "winner and baseline timed in turns after the search. " : "") + roofline_note(t)) + "</p></figure>\n";
  h += "<figure><figcaption>Verdicts by stage</figcaption>" + stage_chart(t) +
       "<p class=\"note\">a failing candidate is counted at the stage that rejected it.</p></figure>\n";
  h += "</div>\n";

  h += fmt::format("<details><summary>{} evaluations</summary>\n<table><tr><th>#</th><th>candidate</th><th>verdict</th><th>stage</th><th>time</th><th>reason</th></tr>\n",
                   t.evaluations.size());
  for (const auto& e : t.evaluations)
    h += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                     e.number, esc(e.label), e.pass ? "pass" : "fail", e.pass ? "pass" : "fail", esc(e.stage), ms(e.time_ms),
                     esc(e.reason));
  h += "</table></details>\n";

  auto lesson_items = [&](bool used) {
    std::string items;
    for (const auto& l : t.lessons) {
      if ((l.prompts > 0) != used) continue;
      std::string tags, meta = fmt::format("confidence {:.2f}", l.lesson.confidence);
      for (const auto& tag : l.lesson.tags) tags += " <span class=\"tag\">" + esc(tag) + "</span>";
      if (used) meta += fmt::format(", in {} LLM prompt{}", l.prompts, l.prompts == 1 ? "" : "s");
      if (l.from_this_task) meta += ", learned from this task";
      items += fmt::format("<li><b>{}</b>: {} <span class=\"meta\">({})</span>{}</li>\n", esc(l.lesson.situation), esc(l.lesson.action),
                           esc(meta), tags);
    }
    return items.empty() ? items : "<ul class=\"lessons\">\n" + items + "</ul>\n";
  };
  const std::string used = lesson_items(true), applying = lesson_items(false);
  if (!used.empty()) h += "<h3>Lessons used</h3>\n" + used;
  if (!applying.empty())
    h += "<h3>Lessons that apply</h3>\n<p class=\"note\">their op and arch tags match this task; no LLM prompt of this task "
         "carried them (the template search reads no lessons).</p>\n" + applying;
  if (t.lessons.empty())
    h += "<h3>Lessons</h3>\n<p class=\"note\">no lessons for " + esc("op/" + t.label.substr(0, t.label.find(' '))) + " on " +
         esc(t.arch) + " yet.</p>\n";
  return h + "</section>\n";
}

std::string summary_table(const ReportData& d) {
  std::string h = "<section id=\"summary\"><h2>Tasks</h2>\n<table><tr><th>task</th><th>device</th><th>evaluations</th><th>passed</th>"
                  "<th>winner</th><th>time</th><th>baseline</th><th>speedup</th></tr>\n";
  for (std::size_t i = 0; i < d.tasks.size(); ++i) {
    const auto& t = d.tasks[i];
    const int passed = t.outcomes.count("pass") ? t.outcomes.at("pass") : 0;
    h += fmt::format("<tr><td><a href=\"#task-{}\">{}</a></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>"
                     "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                     i + 1, esc(t.label), esc(t.device), t.evaluations.size(), passed,
                     esc(t.winner_label.empty()     ? "-"
                         : t.baseline_entry.empty() ? t.winner_label
                                                    : "the baseline (" + t.baseline_entry + "): no candidate beat it"),
                     ms(t.winner_ms), ms(t.baseline_ms),
                     t.winner_ms > 0 && t.baseline_ms > 0 ? fmt::format("{:.2f}x", t.baseline_ms / t.winner_ms) : "-");
  }
  return h + "</table></section>\n";
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return buf;
}

}  // namespace

std::string render_report_html(const ReportData& d) {
  std::size_t evaluations = 0;
  bool cpu = false;
  for (const auto& t : d.tasks) {
    evaluations += t.evaluations.size();
    cpu |= t.timer == "cpu";
  }
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + esc(d.options.title) +
                  "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<header><h1>" + esc(d.options.title) + "</h1>\n";
  h += fmt::format("<p class=\"meta\">database {} &middot; {} task sections &middot; {} evaluations &middot; {} lessons &middot; written {}</p>\n",
                   esc(d.db_file), d.tasks.size(), evaluations, d.lessons_total, utc_now());
  if (cpu)
    h += "<p class=\"warn\">Results marked <b>cpu</b> come from the emu device: CPU times of the emulated kernels, which say "
         "which kernels are correct, not how fast they are on a GPU.</p>\n";
  h += "</header>\n";
  if (d.tasks.empty()) h += "<section><p>The database holds no results yet: run <code>hone tune</code> first.</p></section>\n";
  else h += summary_table(d);
  for (std::size_t i = 0; i < d.tasks.size(); ++i) h += task_section(d.tasks[i], i + 1);
  h += "<footer id=\"report-end\" class=\"meta\">hone report &middot; self-contained: inline SVG, no scripts.</footer>\n</body>\n</html>\n";
  return h;
}

std::size_t write_html_report(const KnowledgeDb& db, const std::filesystem::path& out, const ReportOptions& options) {
  const ReportData data = gather_report(db, options);
  write_file_atomically(out, render_report_html(data));
  return data.tasks.size();
}

}  // namespace hone
