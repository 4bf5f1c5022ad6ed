#include "knowledge_db/compiles_table.hpp"

#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

void put_compile(SqliteConnection& db, const CompileRecord& c) {
  // REPLACE deletes the old row and inserts a new one, so created_at is the time of this compile.
  db.prepare(
        "INSERT OR REPLACE INTO compiles (candidate_id, arch, compiler, ok, log, registers, spill_stores, "
        "spill_loads, shared_bytes, stack_bytes, compile_ms, ptx, cubin) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(c.candidate_id, c.arch, c.compiler, c.ok ? 1 : 0, c.log, c.registers, c.spill_stores, c.spill_loads,
                c.shared_bytes, c.stack_bytes, c.compile_ms, c.ptx, SqliteBlob{c.cubin})
      .run();
}

std::optional<CompileRecord> compile(SqliteConnection& db, std::int64_t candidate_id, const std::string& arch) {
  // rowid breaks ties between compiles stored within the same millisecond.
  auto row = db.prepare(
      "SELECT candidate_id, arch, compiler, ok, log, registers, spill_stores, spill_loads, shared_bytes, "
      "stack_bytes, compile_ms, ptx, cubin FROM compiles WHERE candidate_id = ? AND arch = ? "
      "ORDER BY created_at DESC, rowid DESC LIMIT 1");
  row.bind_all(candidate_id, arch);
  if (!row.step()) return std::nullopt;
  CompileRecord c;
  c.candidate_id = row.column_int64(0);
  c.arch = row.column_text(1);
  c.compiler = row.column_text(2);
  c.ok = row.column_int64(3) != 0;
  c.log = row.column_text(4);
  c.registers = row.column_int(5);
  c.spill_stores = row.column_int(6);
  c.spill_loads = row.column_int(7);
  c.shared_bytes = row.column_int(8);
  c.stack_bytes = row.column_int(9);
  c.compile_ms = row.column_real(10);
  c.ptx = row.column_text(11);
  c.cubin = row.column_blob(12);
  return c;
}

}  // namespace hone::sql
