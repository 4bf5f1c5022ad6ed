#pragma once
// What the HTML report shows, gathered from the database: per task and device, the search's
// evaluations in order, the winner against the baseline and the roofline, the verdicts by stage,
// and the lessons: those the task's LLM prompts carried, and those whose tags match it.
#include <map>
#include <string>
#include <vector>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {

struct ReportEvaluation {
  int number = 0;              // 1-based, in the order the search ran them
  std::string label;           // "rmsnorm_row_block BLOCK=128,VEC=2"
  bool pass = false;
  std::string stage, reason;
  double time_ms = 0;          // 0 when not timed
  double best_ms = 0;          // the best passing time so far, 0 before the first
};

struct Roofline {
  bool known = false;          // the op's bytes and flops could be evaluated at the task's shape
  double bytes = 0, flops = 0;
  double floor_ms = 0;         // bytes / bandwidth or flops / peak, whichever is larger; 0 when the device's limits are unknown
  std::string note;
};

struct ReportLesson {
  LessonRecord lesson;
  bool from_this_task = false; // its evidence includes a result of this task
  int prompts = 0;             // the task's LLM prompts that carried it (the template search reads no lessons)
};

struct TaskReport {
  std::string label, arch, device, timer;
  std::vector<std::string> layers;
  std::vector<ReportEvaluation> evaluations;
  std::map<std::string, int> outcomes;  // "pass" or the failing stage -> count
  std::string winner_label;
  double winner_ms = 0, baseline_ms = 0;
  bool timed_in_turns = false; // winner_ms and baseline_ms come from the re-timing in turns after the search
  std::string baseline_entry;  // "reference", "vendor:...": no candidate beat that baseline, which is the entry
  Roofline roofline;
  std::vector<ReportLesson> lessons;
};

struct ReportOptions {
  std::string title = "hone report";
  double bandwidth_gbs = 0;    // the GPU's memory bandwidth, for the roofline floor; 0: the limits the job recorded, if any
  double peak_gflops = 0;
};

struct ReportData {
  std::string db_file;
  ReportOptions options;
  std::vector<TaskReport> tasks;
  std::size_t lessons_total = 0;
};

/// Reads everything the report shows. The stages in the order validation runs them, for display.
ReportData gather_report(const KnowledgeDb& db, const ReportOptions& options);
const std::vector<std::string>& report_stage_order();

}  // namespace hone
