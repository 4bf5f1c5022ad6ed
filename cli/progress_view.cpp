#include "cli/progress_view.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "tuner/task_tuner.hpp"

namespace hone::cli {

namespace {

using Clock = std::chrono::steady_clock;

std::string first_line(const std::string& s) {
  auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl) + " ...";
}

std::string verdict_text(const ResultRecord& r, bool reused) {
  if (r.verdict == "pass")
    return r.time_ms > 0 ? fmt::format("pass {:.4f} ms{}", r.time_ms, reused ? " (from an earlier run)" : "")
                         : std::string("pass [static]") + (reused ? " (from an earlier run)" : "");
  return "fail [" + r.stage + "] " + first_line(r.reason) + (reused ? " (from an earlier run)" : "");
}

// How long the candidate's evaluation took (checks and timing in the worker), where a job's time
// goes: " [12.3 s]".
std::string evaluation_time_text(const ResultRecord& r, bool reused) {
  if (reused || !r.detail.is_object() || !r.detail.contains("evaluation_seconds")) return "";
  return fmt::format(" [{:.2f} s]", r.detail["evaluation_seconds"].get<double>());
}

std::string outcome_text(const TaskOutcome& o) {
  if (o.from_earlier_run)
    return o.winner_label ? fmt::format("done in an earlier run: {} {:.4f} ms", *o.winner_label, o.winner_ms)
                          : "done in an earlier run: " + o.error;
  if (o.interrupted) return "interrupted";
  if (o.winner_label && o.baseline_entry) return fmt::format("entry: the baseline, {} {:.4f} ms (no candidate beat it)", o.baseline, o.winner_ms);
  if (o.winner_label) return fmt::format("winner {} {:.4f} ms", *o.winner_label, o.winner_ms);
  if (o.static_only) return fmt::format("{} of {} passed the static checks", o.passed, o.tried);
  return "no winner: " + o.error;
}

std::string clock_text(double seconds) {
  if (!(seconds >= 0) || seconds > 99 * 3600) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

class LineView : public JobProgress {
 public:
  explicit LineView(FILE* out) : out_(out) {}
  void note(const std::string& line) override { fmt::print(out_, "{}\n", line); }
  void task_started(std::size_t index, std::size_t total, const Task& task, std::size_t planned) override {
    planned_ = planned;
    done_ = 0;
    fmt::print(out_, "[{}/{}] {}\n", index, total, task.label());
  }
  void candidate_done(const std::string& label, const ResultRecord& r, bool reused) override {
    fmt::print(out_, "  {:>3}/{} {:<40} {}{}\n", ++done_, planned_, label, verdict_text(r, reused), evaluation_time_text(r, reused));
  }
  void task_finished(const TaskOutcome& o) override {
    if (o.from_earlier_run || o.interrupted) fmt::print(out_, "  {}\n", outcome_text(o));
  }

 private:
  FILE* out_;
  std::size_t planned_ = 0, done_ = 0;
};

class BarView : public JobProgress {
 public:
  explicit BarView(FILE* out) : out_(out), job_start_(Clock::now()) {}
  ~BarView() override { clear(); }

  void note(const std::string& line) override {
    clear();
    fmt::print(out_, "{}\n", line);
    draw();
  }
  void task_started(std::size_t index, std::size_t total, const Task& task, std::size_t planned) override {
    index_ = index;
    total_ = total;
    label_ = task.label();
    planned_ = planned;
    done_ = passed_ = 0;
    best_ms_ = 0;
    task_start_ = Clock::now();
    draw();
  }
  void candidate_done(const std::string&, const ResultRecord& r, bool) override {
    ++done_;
    ++job_done_;
    if (r.verdict == "pass") {
      ++passed_;
      if (r.time_ms > 0 && (best_ms_ == 0 || r.time_ms < best_ms_)) best_ms_ = r.time_ms;
    }
    draw();
  }
  void task_finished(const TaskOutcome& o) override {
    clear();
    fmt::print(out_, "[{}/{}] {}: {}\n", index_, total_, label_, outcome_text(o));
    ++tasks_done_;
    planned_ = 0;
  }

 private:
  void clear() {
    if (drawn_) fmt::print(out_, "\r\033[K");
    drawn_ = false;
    std::fflush(out_);
  }
  void draw() {
    if (planned_ == 0) return;
    const double task_s = std::chrono::duration<double>(Clock::now() - task_start_).count();
    const double job_s = std::chrono::duration<double>(Clock::now() - job_start_).count();
    const double rate = job_done_ > 0 && job_s > 0 ? job_done_ / job_s : 0;
    const std::size_t width = 24;
    const std::size_t filled = std::min(width, planned_ ? done_ * width / planned_ : 0);
    const double task_eta = rate > 0 ? (planned_ - std::min(done_, planned_)) / rate : -1;
    const double per_task = tasks_done_ > 0 ? job_s / tasks_done_ : -1;
    const double job_eta = per_task > 0 ? per_task * (total_ - tasks_done_) - task_s : -1;
    std::string line = fmt::format("[{}/{}] {} [{}{}] {}/{} {:.2f} cand/s ETA {} job {}", index_, total_, label_,
                                   std::string(filled, '#'), std::string(width - filled, '.'), done_, planned_, rate,
                                   clock_text(task_eta), clock_text(job_eta));
    if (best_ms_ > 0) line += fmt::format(" best {:.4f} ms", best_ms_);
    fmt::print(out_, "\r\033[K{}", line);
    std::fflush(out_);
    drawn_ = true;
  }

  FILE* out_;
  Clock::time_point job_start_, task_start_;
  std::size_t index_ = 0, total_ = 0, planned_ = 0, done_ = 0, passed_ = 0, job_done_ = 0, tasks_done_ = 0;
  std::string label_;
  double best_ms_ = 0;
  bool drawn_ = false;
};

}  // namespace

std::unique_ptr<JobProgress> make_progress_view(FILE* out) {
  if (::isatty(::fileno(out))) return std::make_unique<BarView>(out);
  return std::make_unique<LineView>(out);
}

}  // namespace hone::cli
