// A tuning job killed with SIGKILL at random moments: the database stays whole every time, no
// winner is lost, and the next run resumes: a candidate whose result was stored is never
// evaluated again. Runs the real `hone tune` binary in its own process group and kills the group
// (hone, its worker and any compiler it started), as a job scheduler would.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <algorithm>
#include <random>
#include <set>
#include <thread>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("hone-kill-" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
};

// Starts `hone tune` on tiny.json with this seed; output to `log`.
pid_t start_tune(const fs::path& db, int seed, const fs::path& log) {
  const std::string hone = std::string(HONE_BINARY_DIR) + "/hone";
  const std::string model = std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json";
  const std::string seed_text = std::to_string(seed);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    // What ctest sets, for runs of the test executable by hand.
    setenv("HONE_HOME", HONE_SOURCE_DIR, 0);
    setenv("HONE_CACHE_DIR", (std::string(HONE_BINARY_DIR) + "/test-cache").c_str(), 0);
    execl(hone.c_str(), "hone", "tune", "--model", model.c_str(), "--device", "emu", "--budget", "2", "--seed",
          seed_text.c_str(), "--timeout", "60", "--db", db.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that the kill below cannot race the child's own call
  return pid;
}

// Waits up to `delay`; kills the process group if it is still running. Returns whether it killed.
bool kill_after(pid_t pid, std::chrono::milliseconds delay, int& status) {
  const auto deadline = Clock::now() + delay;
  while (Clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(-pid, SIGKILL);
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return true;
}

int run_to_end(const fs::path& db, int seed, const fs::path& log) {
  int status = 0;
  pid_t pid = start_tune(db, seed, log);
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_file(const fs::path& f) {
  std::ifstream in(f);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The database through SQLite itself, not through hone's code.
struct RawDb {
  sqlite3* db = nullptr;
  explicit RawDb(const fs::path& file) {
    REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
  }
  ~RawDb() { sqlite3_close(db); }
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    REQUIRE_MESSAGE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK, sqlite3_errmsg(db));
    std::vector<std::vector<std::string>> out;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        auto* t = sqlite3_column_text(s, i);
        row.push_back(t ? reinterpret_cast<const char*>(t) : "");
      }
      out.push_back(row);
    }
    CHECK_MESSAGE(rc == SQLITE_DONE, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return out;
  }
  bool has_table(const std::string& name) {
    return !rows("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '" + name + "'").empty();
  }
};

// Results that evaluated a candidate: not the reference's baseline timings, not the winner's
// re-timing in turns with the reference.
constexpr const char* kEvaluations =
    "c.origin <> 'reference' AND json_extract(r.detail, '$.retimed_against_reference') IS NOT 1";

struct Held {
  double ms = 0;
  bool baseline = false;  // the reference holds it: the search's winner was not faster in turns
};
using Winners = std::map<std::string, Held>;  // "task_id device" -> the winner

Winners winners_of(RawDb& db) {
  Winners w;
  if (!db.has_table("winners")) return w;
  for (auto& r : db.rows("SELECT w.task_id || ' ' || w.device, w.time_ms, c.origin FROM winners w JOIN candidates c ON "
                         "c.id = w.candidate_id"))
    w[r[0]] = {std::stod(r[1]), r[2] == "reference"};
  return w;
}

}  // namespace

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_CASE("kill and resume: SIGKILL at random moments never corrupts the database or loses a winner") {
  Scratch scratch;
  std::mt19937 rng(std::random_device{}());
  const auto started = Clock::now();
  // How long a whole job takes on this machine: the kills fall anywhere from start-up to that.
  // A job whose kernels are not in the compile cache yet takes longer, so whenever a job on a
  // new database gets to its end before its kill, its time becomes the window.
  REQUIRE(run_to_end(scratch.dir / "calibration.db", 1, scratch.dir / "calibration.log") == 0);
  auto whole = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  int kills = 0, kills_with_results = 0, runs = 1;

  // Jobs, each on its own database and seed, killed up to three times and then run to the end.
  for (int job = 1; kills < 12 && job <= 16; ++job) {
    CAPTURE(job);
    const fs::path db = scratch.dir / ("job-" + std::to_string(job) + ".db");
    Winners before;
    std::size_t results_before = 0;
    for (int attempt = 0, job_kills = 0; attempt < 6 && job_kills < 3; ++attempt) {
      int status = 0;
      const int delay = std::uniform_int_distribution<int>(0, static_cast<int>(whole))(rng);
      CAPTURE(delay);
      ++runs;
      const auto run_started = Clock::now();
      if (!kill_after(start_tune(db, job, scratch.dir / "run.log"), std::chrono::milliseconds(delay), status)) {
        REQUIRE_MESSAGE(WIFEXITED(status), read_file(scratch.dir / "run.log"));
        REQUIRE_MESSAGE(WEXITSTATUS(status) == 0, read_file(scratch.dir / "run.log"));
        if (attempt == 0)
          whole = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - run_started).count();
        break;  // the job got to its end before the kill
      }
      ++kills;
      ++job_kills;
      if (!fs::exists(db)) continue;  // killed before it created the database
      RawDb raw(db);
      auto check = raw.rows("PRAGMA integrity_check");
      REQUIRE(check.size() == 1);
      CHECK(check[0][0] == "ok");
      if (!raw.has_table("winners")) continue;  // killed before the schema's first step committed
      // Every winner's result is there and passed: a result and a winner are whole writes.
      CHECK(raw.rows("SELECT 1 FROM winners w LEFT JOIN results r ON r.id = w.result_id "
                     "WHERE r.id IS NULL OR r.verdict <> 'pass' OR r.time_ms <> w.time_ms").empty());
      const std::size_t results = std::stoul(raw.rows("SELECT count(*) FROM results")[0][0]);
      if (results > results_before) ++kills_with_results;
      results_before = results;
      Winners now = winners_of(raw);
      for (const auto& [key, held] : before) {
        CAPTURE(key);
        REQUIRE(now.count(key));
        // A winner is only ever replaced by a faster one, or by the baseline that beat it in turns.
        CHECK((now[key].baseline || now[key].ms <= held.ms));
      }
      before = now;
    }

    // The next run resumes: every candidate evaluated before is taken from the database.
    std::size_t stored = 0;
    if (fs::exists(db)) {
      RawDb raw(db);
      if (raw.has_table("results"))
        stored = std::stoul(raw.rows("SELECT count(DISTINCT r.task_id || ' ' || r.candidate_id) FROM results r JOIN "
                                     "candidates c ON c.id = r.candidate_id WHERE " + std::string(kEvaluations))[0][0]);
    }
    const fs::path log = scratch.dir / ("final-" + std::to_string(job) + ".log");
    ++runs;
    REQUIRE_MESSAGE(run_to_end(db, job, log) == 0, read_file(log));
    const std::string out = read_file(log);
    // Candidates of unfinished tasks are taken from the database one by one; a task that finished
    // (both of its budget's candidates) is not run again at all.
    CHECK_MESSAGE(count_of(out, "(from an earlier run)") + 2 * count_of(out, "done in an earlier run") == stored, out);

    RawDb raw(db);
    CHECK(raw.rows("PRAGMA integrity_check")[0][0] == "ok");
    // No candidate was evaluated twice for a task, across all the killed runs and this one.
    CHECK(raw.rows("SELECT r.task_id, r.candidate_id, r.device FROM results r JOIN candidates c ON "
                   "c.id = r.candidate_id WHERE " + std::string(kEvaluations) + " GROUP BY 1, 2, 3 HAVING count(*) > 1")
              .empty());
    // No winner was lost: each task's winner is the fastest evaluation ever stored for it, or the
    // baseline that it did not beat when timed in turns with it.
    auto lost = raw.rows(
        "SELECT w.task_id, w.time_ms, min(r.time_ms) FROM winners w JOIN candidates wc ON wc.id = w.candidate_id JOIN results r "
        "ON r.task_id = w.task_id AND r.device = w.device JOIN candidates c ON c.id = r.candidate_id WHERE " +
        std::string(kEvaluations) + " AND r.verdict = 'pass' AND wc.origin <> 'reference' GROUP BY w.task_id, w.device "
        "HAVING w.time_ms > min(r.time_ms)");
    CHECK_MESSAGE(lost.empty(), (lost.empty() ? "" : lost[0][0] + ": " + lost[0][1] + " > " + lost[0][2]));
    CHECK(raw.rows("SELECT DISTINCT task_id FROM winners").size() == 2);
    CHECK(raw.rows("SELECT 1 FROM winners w JOIN candidates c ON c.id = w.candidate_id WHERE c.origin = 'reference' AND "
                   "w.retimed_ms IS NULL").empty());  // a baseline holds the entry only by a timing in turns
    for (const auto& [key, held] : before) CHECK((winners_of(raw).at(key).baseline || winners_of(raw).at(key).ms <= held.ms));
  }
  MESSAGE(kills << " kills (" << kills_with_results << " after results were stored) in " << runs
                << " runs of jobs that take about " << whole << " ms, "
                << std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started).count() << " s");
  CHECK(kills >= 10);
}
