#include "knowledge_db/schema.hpp"

#include <sstream>

#include <sqlite3.h>

#include "knowledge_db/sqlite_connection.hpp"

namespace hone {

namespace {

// REAL columns are nullable on purpose: SQLite stores a bound NaN as NULL (a failed kernel's
// max_abs_err often is NaN), and NOT NULL would turn that into a constraint error.
// results.id is AUTOINCREMENT so ids only grow: "newest" is the highest id, whatever the clocks say.
const char* const kVersion1 = R"sql(
CREATE TABLE tasks (
  id          INTEGER PRIMARY KEY,
  key         TEXT NOT NULL UNIQUE CHECK (key <> ''),
  op          TEXT NOT NULL,
  spec_hash   TEXT NOT NULL,
  static_dims TEXT NOT NULL,
  buckets     TEXT NOT NULL,
  shape       TEXT NOT NULL,
  scalars     TEXT NOT NULL,
  arch        TEXT NOT NULL,
  layers      TEXT NOT NULL,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE candidates (
  id         INTEGER PRIMARY KEY,
  key        TEXT NOT NULL UNIQUE CHECK (key <> ''),
  op         TEXT NOT NULL,
  origin     TEXT NOT NULL,
  variant    TEXT NOT NULL,
  params     TEXT NOT NULL,
  entry      TEXT NOT NULL,
  source     TEXT NOT NULL,
  launch     TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE compiles (
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  arch         TEXT NOT NULL,
  compiler     TEXT NOT NULL,
  ok           INTEGER NOT NULL,
  log          TEXT NOT NULL,
  registers    INTEGER NOT NULL,
  spill_stores INTEGER NOT NULL,
  spill_loads  INTEGER NOT NULL,
  shared_bytes INTEGER NOT NULL,
  stack_bytes  INTEGER NOT NULL,
  compile_ms   REAL,
  ptx          TEXT NOT NULL,
  cubin        BLOB NOT NULL,
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (candidate_id, arch, compiler)
);

CREATE TABLE results (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id      INTEGER NOT NULL REFERENCES tasks(id),
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  device       TEXT NOT NULL,
  verdict      TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')),
  stage        TEXT NOT NULL,
  reason       TEXT NOT NULL,
  max_abs_err  REAL,
  time_ms      REAL,
  time_min_ms  REAL,
  time_spread  REAL,
  runs         INTEGER NOT NULL,
  timer        TEXT NOT NULL,
  detail       TEXT NOT NULL,
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX results_by_task_candidate_device ON results (task_id, candidate_id, device);

CREATE TABLE winners (
  task_id      INTEGER NOT NULL REFERENCES tasks(id),
  device       TEXT NOT NULL,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  result_id    INTEGER NOT NULL REFERENCES results(id),
  time_ms      REAL NOT NULL CHECK (time_ms > 0),
  baseline_ms  REAL,
  updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (task_id, device)
);
)sql";

// Version 2: what lessons and shards need. Tables of version 1 are extended, never rebuilt, so a
// version-1 file keeps every row. Triggers keep the new lookup tables (devices, op_specs) filled
// by any writer, so code written for version 1 keeps working unchanged.
// - devices: every device string results name; kind is the part before ':' ("emu", "cuda").
// - op_specs: the op spec each task was tuned against, by content hash; spec is NULL until
//   someone stores its text.
// - candidates.parent: the candidate this one was derived from (an LLM's edit of a winner).
// - lessons: situation + action, tags as a JSON array of paths, evidence (results), vectors per
//   embedding model, and an FTS5 index kept in step by triggers. `key` names the claim a
//   distilled lesson makes (op, variant, parameter, device), so distillation updates its own
//   lessons instead of adding duplicates; at most one active lesson per key.
const char* const kVersion2 = R"sql(
CREATE TABLE devices (
  name       TEXT PRIMARY KEY CHECK (name <> ''),
  kind       TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT OR IGNORE INTO devices (name, kind)
  SELECT DISTINCT device, CASE WHEN instr(device, ':') > 0 THEN substr(device, 1, instr(device, ':') - 1) ELSE device END
  FROM results WHERE device <> '';
CREATE TRIGGER results_add_device AFTER INSERT ON results BEGIN
  INSERT OR IGNORE INTO devices (name, kind) VALUES (new.device,
    CASE WHEN instr(new.device, ':') > 0 THEN substr(new.device, 1, instr(new.device, ':') - 1) ELSE new.device END);
END;

CREATE TABLE op_specs (
  hash       TEXT PRIMARY KEY CHECK (hash <> ''),
  op         TEXT NOT NULL,
  spec       TEXT CHECK (spec IS NULL OR json_valid(spec)),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT OR IGNORE INTO op_specs (hash, op) SELECT spec_hash, min(op) FROM tasks WHERE spec_hash <> '' GROUP BY spec_hash;
CREATE TRIGGER tasks_add_op_spec AFTER INSERT ON tasks WHEN new.spec_hash <> '' BEGIN
  INSERT OR IGNORE INTO op_specs (hash, op) VALUES (new.spec_hash, new.op);
END;

ALTER TABLE candidates ADD COLUMN parent INTEGER REFERENCES candidates(id);

CREATE TABLE lessons (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  situation     TEXT NOT NULL CHECK (trim(situation) <> ''),
  action        TEXT NOT NULL CHECK (trim(action) <> ''),
  tags          TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
  confidence    REAL NOT NULL DEFAULT 0.5 CHECK (confidence >= 0 AND confidence <= 1),
  status        TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded')),
  superseded_by INTEGER REFERENCES lessons(id),
  origin        TEXT NOT NULL DEFAULT 'user',
  key           TEXT CHECK (key IS NULL OR key <> ''),
  claim         TEXT CHECK (claim IS NULL OR json_valid(claim)),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX lessons_one_active_per_key ON lessons (key) WHERE status = 'active' AND key IS NOT NULL;

CREATE TABLE lesson_evidence (
  lesson_id INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,
  result_id INTEGER NOT NULL REFERENCES results(id),
  PRIMARY KEY (lesson_id, result_id)
) WITHOUT ROWID;

CREATE TABLE lesson_vectors (
  lesson_id INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,
  model     TEXT NOT NULL CHECK (model <> ''),
  dim       INTEGER NOT NULL CHECK (dim > 0),
  vector    BLOB NOT NULL CHECK (length(vector) = 4 * dim),
  PRIMARY KEY (lesson_id, model)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE lessons_fts USING fts5(
  situation, action, tags, content = 'lessons', content_rowid = 'id', tokenize = 'porter unicode61');
CREATE TRIGGER lessons_fts_insert AFTER INSERT ON lessons BEGIN
  INSERT INTO lessons_fts (rowid, situation, action, tags) VALUES (new.id, new.situation, new.action, new.tags);
END;
CREATE TRIGGER lessons_fts_delete AFTER DELETE ON lessons BEGIN
  INSERT INTO lessons_fts (lessons_fts, rowid, situation, action, tags)
    VALUES ('delete', old.id, old.situation, old.action, old.tags);
END;
CREATE TRIGGER lessons_fts_update AFTER UPDATE OF situation, action, tags ON lessons BEGIN
  INSERT INTO lessons_fts (lessons_fts, rowid, situation, action, tags)
    VALUES ('delete', old.id, old.situation, old.action, old.tags);
  INSERT INTO lessons_fts (rowid, situation, action, tags) VALUES (new.id, new.situation, new.action, new.tags);
END;
)sql";

// Version 3: what resuming a job needs, and honest speedups. A task run is a task finished on a
// device under one plan (strategy, budget, seed, proposers): rerunning the same plan skips it.
const char* const kVersion3 = R"sql(
CREATE TABLE task_runs (
  task_id     INTEGER NOT NULL REFERENCES tasks(id),
  device      TEXT NOT NULL,
  plan        TEXT NOT NULL CHECK (plan <> ''),
  summary     TEXT NOT NULL,
  finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (task_id, device, plan)
) WITHOUT ROWID;

-- The winner and the baseline timed in turns in one session: the figures a user compares. The
-- winner is still chosen by time_ms, its evaluation's median, so every candidate competes on
-- the same kind of measurement.
ALTER TABLE winners ADD COLUMN retimed_ms REAL;
ALTER TABLE winners ADD COLUMN retimed_baseline_ms REAL;
)sql";

// Version 4: what the LLM proposer asked and was told. One row per request (an attempt): the
// exact prompt (the messages as JSON), the reply as received, token usage, the lessons the prompt
// used, and what came of it; the candidates a reply became are linked (a reply with a parameter
// space becomes several). The API key is never among them: it lives only in the environment.
const char* const kVersion4 = R"sql(
CREATE TABLE llm_attempts (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id           INTEGER NOT NULL REFERENCES tasks(id),
  attempt           INTEGER NOT NULL CHECK (attempt > 0),
  model             TEXT NOT NULL,
  parent_id         INTEGER REFERENCES candidates(id),
  prompt            TEXT NOT NULL CHECK (json_valid(prompt)),
  reply             TEXT NOT NULL,
  finish_reason     TEXT NOT NULL,
  outcome           TEXT NOT NULL CHECK (outcome IN ('candidates', 'unusable', 'request_failed')),
  reason            TEXT NOT NULL,
  lessons_used      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(lessons_used)),
  lesson_id         INTEGER REFERENCES lessons(id),
  lesson_note       TEXT NOT NULL DEFAULT '',
  requests          INTEGER NOT NULL DEFAULT 0,
  prompt_tokens     INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  latency_ms        REAL,
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX llm_attempts_by_task ON llm_attempts (task_id);

CREATE TABLE llm_attempt_candidates (
  attempt_id   INTEGER NOT NULL REFERENCES llm_attempts(id) ON DELETE CASCADE,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  PRIMARY KEY (attempt_id, candidate_id)
) WITHOUT ROWID;
CREATE INDEX llm_attempt_candidates_by_candidate ON llm_attempt_candidates (candidate_id);
)sql";

// Version 5: what no kernel on a device can beat, as the last job that opened it measured: the
// copy bandwidth, the memory's peak and the arithmetic bound from its attributes, its L2. The
// report draws its roofline floor from them; a device seen only in results has none.
const char* const kVersion5 = R"sql(
ALTER TABLE devices ADD COLUMN limits TEXT CHECK (limits IS NULL OR json_valid(limits));
)sql";

std::string hex(std::int64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

}  // namespace

const std::vector<std::string>& schema_migrations() {
  static const std::vector<std::string> steps = {
      std::string("PRAGMA application_id = ") + std::to_string(kHoneApplicationId) + ";\n" + kVersion1,
      kVersion2,
      kVersion3,
      kVersion4,
      kVersion5,
  };
  return steps;
}

int latest_schema_version() { return static_cast<int>(schema_migrations().size()); }

namespace {

[[noreturn]] void refuse_newer(const SqliteConnection& db, std::int64_t version, int known_version) {
  throw DbError(db.name() + ": written by a newer hone (schema " + std::to_string(version) +
                ", this hone knows up to " + std::to_string(known_version) + ")");
}

}  // namespace

void check_hone_database(SqliteConnection& db, int known_version) {
  // The first read of the file is where SQLite notices that it is not a database; ask for the
  // result code directly so that case gets its own message.
  int rc = sqlite3_exec(db.handle(), "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
  if ((rc & 0xff) == SQLITE_NOTADB) throw DbError(db.name() + ": not a hone database (not an SQLite file)");
  if ((rc & 0xff) == SQLITE_CORRUPT) db.fail("is a corrupt database");
  if (rc != SQLITE_OK) db.fail("cannot be read");

  // One statement, so one snapshot: read apart, another process's migration could commit in
  // between and make a half-seen hone database look like someone else's.
  auto row = db.prepare(
      "SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version), "
      "(SELECT count(*) FROM sqlite_schema)");
  if (!row.step()) throw DbError(db.name() + ": cannot read the database header");
  std::int64_t application_id = row.column_int64(0);
  std::int64_t version = row.column_int64(1);
  std::int64_t objects = row.column_int64(2);
  if (application_id == 0 && version == 0 && objects == 0) return;  // new or empty: hone's to create
  if (application_id != kHoneApplicationId) {
    throw DbError(db.name() + ": not a hone database (an SQLite database of another program, application_id " +
                  hex(application_id) + ")");
  }
  if (version > known_version) refuse_newer(db, version, known_version);
}

void check_not_corrupt(SqliteConnection& db) {
  std::string verdict;
  try {
    auto row = db.prepare("PRAGMA quick_check(1)");
    if (row.step()) verdict = row.column_text(0);
  } catch (const DbError& e) {
    verdict = e.what();  // so damaged that the check itself cannot run
  }
  if (verdict != "ok") throw DbError(db.name() + ": is a corrupt database (quick_check: " + verdict + ")");
}

void migrate(SqliteConnection& db, const std::vector<std::string>& steps) {
  int known_version = static_cast<int>(steps.size());
  // The usual case, an up-to-date file, needs no write lock.
  if (db.query_int("PRAGMA user_version") == known_version) return;
  for (int target = 1; target <= known_version; ++target) {
    SqliteTransaction transaction(db);
    // Read inside the write lock: another process may have migrated since we last looked.
    std::int64_t version = db.query_int("PRAGMA user_version");
    if (version > known_version) refuse_newer(db, version, known_version);
    if (version >= target) continue;
    db.exec(steps[static_cast<std::size_t>(target - 1)]);
    db.exec("PRAGMA user_version = " + std::to_string(target));
    transaction.commit();
  }
}

}  // namespace hone
