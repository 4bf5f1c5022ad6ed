#pragma once
// `hone report`: one self-contained HTML page about a database: per task, the best time against
// evaluations, the winner against the baseline and the roofline, the candidates' verdicts by
// stage and the lessons that apply. Inline CSS and SVG only: no script, nothing fetched, so it
// opens anywhere, offline, and attaches to a CI run as one file.
#include <filesystem>
#include <string>

#include "report/report_data.hpp"

namespace hone {

std::string render_report_html(const ReportData& data);

/// Gathers and writes the report atomically. Returns the number of task sections.
std::size_t write_html_report(const KnowledgeDb& db, const std::filesystem::path& out, const ReportOptions& options = {});

}  // namespace hone
