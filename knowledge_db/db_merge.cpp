#include "knowledge_db/db_merge.hpp"

#include <stdlib.h>

#include "core/input_error.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "knowledge_db/schema.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "knowledge_db/winners_table.hpp"

namespace hone {

namespace {

// A folder for the snapshots, removed with them.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hone-merge-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw DbError(pattern + ": cannot create a folder for the merge's snapshots");
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// A consistent copy of the source at this hone's schema; the source itself is only read.
std::filesystem::path snapshot(const std::filesystem::path& source, const std::filesystem::path& copy) {
  if (!std::filesystem::exists(source)) throw DbError(source.string() + ": no such database");
  {
    SqliteConnection src(source, std::chrono::seconds(10), /*read_only=*/true);
    check_hone_database(src, KnowledgeDb::schema_version());
    check_not_corrupt(src);
    src.prepare("VACUUM INTO ?").bind_all(copy.string()).run();
  }
  KnowledgeDb migrated(copy);  // an older source gains the newer tables here, in the copy
  return copy;
}

std::int64_t insert_returning_id(SqliteStatement& s) {
  if (!s.step()) throw DbError(s.connection().name() + ": an insert returned no id");
  std::int64_t id = s.column_int64(0);
  s.run();
  return id;
}

int changes_of(SqliteConnection& db, const std::string& sql) {
  db.exec(sql);
  return db.changes();
}

void merge_one(SqliteConnection& db, MergeReport& report) {
  db.exec(
      "INSERT INTO devices (name, kind, created_at, limits) SELECT name, kind, created_at, limits FROM src.devices WHERE 1 "
      "  ON CONFLICT (name) DO UPDATE SET limits = coalesce(excluded.limits, devices.limits);"
      "INSERT INTO op_specs (hash, op, spec, created_at) SELECT hash, op, spec, created_at FROM src.op_specs WHERE 1 "
      "  ON CONFLICT (hash) DO UPDATE SET spec = coalesce(op_specs.spec, excluded.spec)");
  report.tasks += changes_of(db,
      "INSERT OR IGNORE INTO tasks (key, op, spec_hash, static_dims, buckets, shape, scalars, arch, layers, created_at) "
      "SELECT key, op, spec_hash, static_dims, buckets, shape, scalars, arch, layers, created_at FROM src.tasks");
  // A task both shards know serves the layers of both.
  db.exec(
      "UPDATE tasks SET layers = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(tasks.layers) UNION "
      "  SELECT value FROM json_each((SELECT s.layers FROM src.tasks s WHERE s.key = tasks.key)))) "
      "WHERE key IN (SELECT key FROM src.tasks)");
  report.candidates += changes_of(db,
      "INSERT OR IGNORE INTO candidates (key, op, origin, variant, params, entry, source, launch, created_at) "
      "SELECT key, op, origin, variant, params, entry, source, launch, created_at FROM src.candidates");
  db.exec(
      "CREATE TEMP TABLE task_map AS SELECT s.id AS src, m.id AS dst FROM src.tasks s JOIN main.tasks m ON m.key = s.key;"
      "CREATE TEMP TABLE candidate_map AS "
      "  SELECT s.id AS src, m.id AS dst FROM src.candidates s JOIN main.candidates m ON m.key = s.key;"
      "UPDATE candidates SET parent = (SELECT pm.dst FROM src.candidates s JOIN temp.candidate_map pm ON pm.src = s.parent "
      "  WHERE s.key = candidates.key) "
      "WHERE parent IS NULL AND key IN (SELECT key FROM src.candidates WHERE parent IS NOT NULL)");
  report.compiles += changes_of(db,
      "INSERT OR IGNORE INTO compiles (candidate_id, arch, compiler, ok, log, registers, spill_stores, spill_loads, "
      "shared_bytes, stack_bytes, compile_ms, ptx, cubin, created_at) "
      "SELECT cm.dst, arch, compiler, ok, log, registers, spill_stores, spill_loads, shared_bytes, stack_bytes, compile_ms, "
      "ptx, cubin, created_at FROM src.compiles c JOIN temp.candidate_map cm ON cm.src = c.candidate_id");

  // Results, oldest first, so that among the merged ones a newer result keeps a higher id.
  db.exec("CREATE TEMP TABLE result_map (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)");
  auto rows = db.prepare(
      "SELECT r.id, tm.dst, cm.dst, r.device, r.verdict, r.stage, r.reason, r.max_abs_err, r.time_ms, r.time_min_ms, "
      "r.time_spread, r.runs, r.timer, r.detail, r.created_at FROM src.results r "
      "JOIN temp.task_map tm ON tm.src = r.task_id JOIN temp.candidate_map cm ON cm.src = r.candidate_id ORDER BY r.id");
  while (rows.step()) {
    auto same = db.prepare(
        "SELECT id FROM main.results WHERE task_id = ? AND candidate_id = ? AND device = ? AND created_at = ? AND "
        "verdict = ? AND time_ms IS ? ORDER BY id LIMIT 1");
    same.bind_all(rows.column_int64(1), rows.column_int64(2), rows.column_text(3), rows.column_text(14), rows.column_text(4));
    if (rows.column_is_null(8)) same.bind(6, nullptr);
    else same.bind(6, rows.column_real(8));
    std::int64_t dst = 0;
    if (same.step()) {
      dst = same.column_int64(0);
    } else {
      auto insert = db.prepare(
          "INSERT INTO results (task_id, candidate_id, device, verdict, stage, reason, max_abs_err, time_ms, time_min_ms, "
          "time_spread, runs, timer, detail, created_at) "
          "SELECT ?, ?, device, verdict, stage, reason, max_abs_err, time_ms, time_min_ms, time_spread, runs, timer, "
          "detail, created_at FROM src.results WHERE id = ? RETURNING id");
      insert.bind_all(rows.column_int64(1), rows.column_int64(2), rows.column_int64(0));
      dst = insert_returning_id(insert);
      ++report.results;
    }
    db.prepare("INSERT INTO temp.result_map (src, dst) VALUES (?, ?)").bind_all(rows.column_int64(0), dst).run();
  }

  // Winners: the faster of the two per (task, device), by the same rule as a tuning job's.
  auto winners = db.prepare(
      "SELECT tm.dst, w.device, cm.dst, rm.dst, w.time_ms, w.baseline_ms, w.retimed_ms, w.retimed_baseline_ms FROM src.winners w "
      "JOIN temp.task_map tm ON tm.src = w.task_id JOIN temp.candidate_map cm ON cm.src = w.candidate_id "
      "JOIN temp.result_map rm ON rm.src = w.result_id");
  while (winners.step()) {
    WinnerRecord w{winners.column_int64(0), winners.column_text(1), winners.column_int64(2), winners.column_int64(3),
                   winners.column_real(4),  winners.column_real(5), ""};
    if (sql::offer_winner(db, w)) {
      ++report.winners;
      if (!winners.column_is_null(6) && !winners.column_is_null(7))
        sql::retime_winner(db, w.task_id, w.device, w.candidate_id, winners.column_real(6), winners.column_real(7));
    }
  }

  // Finished task runs: a merged database resumes like each shard would.
  db.exec(
      "INSERT OR IGNORE INTO task_runs (task_id, device, plan, summary, finished_at) "
      "SELECT tm.dst, r.device, r.plan, r.summary, r.finished_at FROM src.task_runs r JOIN temp.task_map tm ON tm.src = r.task_id");

  // Lessons: one already present (same situation and action) is not added again. A distilled
  // lesson whose claim is already held by an active lesson here arrives superseded by it;
  // `hone lessons distill` then re-derives the claims from all the results.
  db.exec("CREATE TEMP TABLE lesson_map (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)");
  auto lessons = db.prepare("SELECT id, situation, action, status, key FROM src.lessons ORDER BY id");
  while (lessons.step()) {
    const std::int64_t src_id = lessons.column_int64(0);
    auto same = db.prepare("SELECT id FROM main.lessons WHERE situation = ? AND action = ? ORDER BY id LIMIT 1");
    same.bind_all(lessons.column_text(1), lessons.column_text(2));
    std::int64_t dst = 0;
    if (same.step()) {
      dst = same.column_int64(0);
    } else {
      std::int64_t holder = 0;
      if (lessons.column_text(3) == "active" && !lessons.column_is_null(4)) {
        auto h = db.prepare("SELECT id FROM main.lessons WHERE status = 'active' AND key = ?");
        h.bind(1, lessons.column_text(4));
        if (h.step()) holder = h.column_int64(0);
      }
      auto insert = db.prepare(
          "INSERT INTO lessons (situation, action, tags, confidence, status, origin, key, claim, created_at, updated_at) "
          "SELECT situation, action, tags, confidence, CASE WHEN ? THEN 'superseded' ELSE status END, origin, key, claim, "
          "created_at, updated_at FROM src.lessons WHERE id = ? RETURNING id");
      insert.bind_all(holder != 0 ? 1 : 0, src_id);
      dst = insert_returning_id(insert);
      if (holder) db.prepare("UPDATE lessons SET superseded_by = ? WHERE id = ?").bind_all(holder, dst).run();
      db.prepare(
            "INSERT OR IGNORE INTO lesson_evidence (lesson_id, result_id) SELECT ?, rm.dst FROM src.lesson_evidence e "
            "JOIN temp.result_map rm ON rm.src = e.result_id WHERE e.lesson_id = ?")
          .bind_all(dst, src_id)
          .run();
      db.prepare(
            "INSERT OR IGNORE INTO lesson_vectors (lesson_id, model, dim, vector) SELECT ?, model, dim, vector "
            "FROM src.lesson_vectors WHERE lesson_id = ?")
          .bind_all(dst, src_id)
          .run();
      ++report.lessons;
    }
    db.prepare("INSERT INTO temp.lesson_map (src, dst) VALUES (?, ?)").bind_all(src_id, dst).run();
  }
  db.exec(
      "UPDATE lessons SET superseded_by = (SELECT bm.dst FROM temp.lesson_map lm JOIN src.lessons s ON s.id = lm.src "
      "  JOIN temp.lesson_map bm ON bm.src = s.superseded_by WHERE lm.dst = lessons.id) "
      "WHERE superseded_by IS NULL AND id IN (SELECT lm.dst FROM temp.lesson_map lm JOIN src.lessons s ON s.id = lm.src "
      "  WHERE s.superseded_by IS NOT NULL)");
  db.exec(
      "DROP TABLE temp.task_map; DROP TABLE temp.candidate_map; DROP TABLE temp.result_map; DROP TABLE temp.lesson_map");
}

}  // namespace

std::string MergeReport::summary() const {
  return "merged " + std::to_string(sources) + " databases: " + std::to_string(tasks) + " tasks, " +
         std::to_string(candidates) + " candidates, " + std::to_string(compiles) + " compiles, " +
         std::to_string(results) + " results, " + std::to_string(winners) + " winners, " + std::to_string(lessons) +
         " lessons added";
}

MergeReport merge_databases(const std::vector<std::filesystem::path>& sources, const std::filesystem::path& into) {
  for (const auto& s : sources) {
    std::error_code ec;
    if (s == into || std::filesystem::equivalent(s, into, ec))
      throw InputError(into.string() + ": is also a source of the merge; merge into a new or another file");
  }
  ScratchDir scratch;
  std::vector<std::filesystem::path> snapshots;
  for (std::size_t i = 0; i < sources.size(); ++i)
    snapshots.push_back(snapshot(sources[i], scratch.path / ("source-" + std::to_string(i) + ".db")));

  { KnowledgeDb target(into); }  // created, checked and migrated like any hone database
  SqliteConnection db(into);
  db.exec("PRAGMA foreign_keys = ON");
  MergeReport report;
  for (const auto& snap : snapshots) {
    db.prepare("ATTACH DATABASE ? AS src").bind_all(snap.string()).run();
    try {
      SqliteTransaction transaction(db);
      merge_one(db, report);
      transaction.commit();
    } catch (...) {
      db.exec("DETACH DATABASE src");
      throw;
    }
    db.exec("DETACH DATABASE src");
    ++report.sources;
  }
  return report;
}

}  // namespace hone
