#pragma once
// How `hone tune` shows a job's progress: a bar with rate and ETA redrawn in place on a terminal,
// plain lines (one per candidate and per task) anywhere else, so logs of CI runs stay readable.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "tuner/job_progress.hpp"

namespace hone::cli {

/// A bar when `out` is a terminal, else lines.
std::unique_ptr<JobProgress> make_progress_view(FILE* out);

}  // namespace hone::cli
