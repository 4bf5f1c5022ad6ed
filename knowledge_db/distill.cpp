#include "knowledge_db/distill.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "knowledge_db/json_column.hpp"
#include "knowledge_db/lessons_table.hpp"
#include "knowledge_db/local_embedding.hpp"
#include "knowledge_db/sqlite_connection.hpp"

namespace hone {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string device_kind(const std::string& device) { return device.substr(0, device.find(':')); }

// The latest result of every (task, candidate, device), when it passed and was timed, for
// template candidates: their parameters are what an effect is about. A winner re-timed in turns
// with the reference (the tuner marks it) is a measurement of another protocol, made for the
// winner alone: comparing it with its rivals' ordinary timings would tilt the comparison.
std::vector<Measurement> measurements(SqliteConnection& db) {
  auto row = db.prepare(
      std::string("WITH latest AS (SELECT r.*, row_number() OVER (PARTITION BY task_id, candidate_id, device ORDER BY id DESC) AS n "
                  "FROM results r WHERE json_extract(r.detail, '$.") + ResultRecord::kRetimingKey + "') IS NOT 1) "
      "SELECT l.id, l.task_id, c.op, c.variant, t.arch, l.device, l.timer, c.params, t.shape, t.buckets, l.time_ms "
      "FROM latest l JOIN candidates c ON c.id = l.candidate_id JOIN tasks t ON t.id = l.task_id "
      "WHERE l.n = 1 AND l.verdict = 'pass' AND l.time_ms > 0 AND c.origin = 'template' ORDER BY l.id");
  std::vector<Measurement> out;
  while (row.step()) {
    Measurement m;
    m.result_id = row.column_int64(0);
    m.task_id = row.column_int64(1);
    m.op = row.column_text(2);
    m.variant = row.column_text(3);
    m.arch = row.column_text(4);
    m.device = row.column_text(5);
    m.timer = row.column_text(6);
    m.params = column_json(row, 7);
    m.shape = column_json(row, 8);
    m.buckets = column_json(row, 9);
    m.time_ms = row.column_real(10);
    out.push_back(std::move(m));
  }
  return out;
}

// Tags that say where a lesson applies: lessons for different ops, architectures or devices are
// never duplicates, however alike their words ("sm_80" and "sm_90" differ by one character).
std::set<std::string> scope(const LessonRecord& l) {
  std::set<std::string> s;
  for (const auto& t : l.tags)
    if (tag_has_prefix(t, "op") || tag_has_prefix(t, "arch") || tag_has_prefix(t, "device")) s.insert(t);
  return s;
}

int merge_near_duplicates(SqliteConnection& db, const DistillOptions& o) {
  auto active = sql::lessons(db, false);
  const auto vectors = sql::lesson_vectors(db, local_embedding_model());
  std::set<std::int64_t> gone;
  int merged = 0;
  for (std::size_t i = 0; i < active.size(); ++i) {
    for (std::size_t j = i + 1; j < active.size(); ++j) {
      LessonRecord& a = active[i];
      LessonRecord& b = active[j];
      if (gone.count(a.id) || gone.count(b.id)) continue;
      // Two distilled claims are different by construction (one active lesson per key).
      if (!a.key.empty() && !b.key.empty()) continue;
      auto va = vectors.find(a.id), vb = vectors.find(b.id);
      if (va == vectors.end() || vb == vectors.end() || scope(a) != scope(b)) continue;
      if (cosine_similarity(va->second, vb->second) < o.merge_similarity) continue;
      // Keep the more confident, then the older: its id is the one others may already cite.
      const bool keep_a = a.confidence != b.confidence ? a.confidence > b.confidence : a.id < b.id;
      LessonRecord& keep = keep_a ? a : b;
      LessonRecord& drop = keep_a ? b : a;
      for (const auto& t : drop.tags)
        if (std::find(keep.tags.begin(), keep.tags.end(), t) == keep.tags.end()) keep.tags.push_back(t);
      for (auto r : drop.evidence)
        if (std::find(keep.evidence.begin(), keep.evidence.end(), r) == keep.evidence.end()) keep.evidence.push_back(r);
      sql::update_lesson(db, keep);
      sql::put_lesson_vector(db, keep.id, local_embedding(lesson_text(keep)));
      sql::supersede_lesson(db, drop.id, keep.id);
      gone.insert(drop.id);
      ++merged;
    }
  }
  return merged;
}

}  // namespace

std::string DistillReport::summary() const {
  return std::to_string(effects) + " parameter effects; " + std::to_string(written) + " lessons written, " +
         std::to_string(refreshed) + " refreshed, " + std::to_string(superseded) + " superseded, " +
         std::to_string(merged) + " merged";
}

LessonRecord lesson_for_effect(const ParamEffect& e) {
  LessonRecord l;
  l.origin = "distilled";
  l.key = e.key();
  std::string shape;
  for (const auto& [dim, range] : e.dims) {
    shape += (shape.empty() ? "" : ", ") + dim +
             (range.first == range.second ? "=" + std::to_string(range.first)
                                          : " " + std::to_string(range.first) + ".." + std::to_string(range.second));
  }
  l.situation = e.op + (e.variant.empty() ? "" : " (" + e.variant + ")") + (shape.empty() ? "" : " at " + shape) + " on " +
                e.device + " (" + e.arch + (e.timer == "cpu" ? ", CPU times of the emu device" : "") + ")";
  l.action = "prefer " + e.param + "=" + value_text(e.value) + ": median " + fixed(e.median_speedup, 2) +
             "x faster than the next value, best in " + std::to_string(e.support) + " of " + std::to_string(e.compared) +
             " tasks";
  l.tags = {"op/" + e.op, "arch/" + e.arch, "param/" + e.param, "device/" + device_kind(e.device)};
  if (!e.variant.empty()) l.tags.push_back("variant/" + e.variant);
  if (e.timer == "cpu") l.tags.push_back("timer/cpu");
  for (const auto& [dim, range] : e.dims)
    if (range.first != range.second) l.tags.push_back("shape/" + dim + "<=" + std::to_string(range.second));
  for (auto& t : l.tags) std::replace(t.begin(), t.end(), ' ', '_');
  // Agreement, discounted while the support is small: 3 of 3 tasks gives 0.75, 10 of 10 gives 0.91.
  const double agreement = double(e.support) / e.compared;
  l.confidence = agreement * e.support / (e.support + 1.0);
  l.claim = {{"op", e.op},         {"variant", e.variant}, {"param", e.param},       {"value", e.value},
             {"device", e.device}, {"support", e.support}, {"compared", e.compared}, {"median_speedup", e.median_speedup}};
  l.evidence = e.evidence;
  return l;
}

namespace sql {

DistillReport distill_lessons(SqliteConnection& db, const DistillOptions& o) {
  DistillReport report;
  const auto ms = measurements(db);
  const auto effects = find_param_effects(ms, o);
  report.effects = static_cast<int>(effects.size());

  std::map<std::string, LessonRecord> mine;  // active distilled lessons by claim key
  for (auto& l : lessons(db, false))
    if (!l.key.empty()) mine.emplace(l.key, std::move(l));

  std::set<std::string> claimed;
  for (const auto& e : effects) {
    LessonRecord fresh = lesson_for_effect(e);
    claimed.insert(fresh.key);
    auto old = mine.find(fresh.key);
    if (old != mine.end() && old->second.claim.value("value", nlohmann::json()) == e.value) {
      fresh.id = old->second.id;
      const bool changed = fresh.situation != old->second.situation || fresh.action != old->second.action ||
                           fresh.evidence != old->second.evidence || fresh.tags != old->second.tags;
      if (changed) {
        update_lesson(db, fresh);
        put_lesson_vector(db, fresh.id, local_embedding(lesson_text(fresh)));
        ++report.refreshed;
      }
      continue;
    }
    if (old != mine.end()) {
      // Another value now wins: the old lesson gives way to the new one (one active per key).
      supersede_lesson(db, old->second.id, 0);
      add_lesson(db, fresh, {local_embedding(lesson_text(fresh))});
      supersede_lesson(db, old->second.id, fresh.id);
      ++report.superseded;
    } else {
      add_lesson(db, fresh, {local_embedding(lesson_text(fresh))});
    }
    ++report.written;
  }

  // A lesson without an effect now is contradicted when its value no longer wins even half of
  // the tasks compared; a lesson merely short of support keeps standing.
  std::map<std::string, ParamTally> tallies;
  for (auto& t : tally_params(ms)) tallies.emplace(t.key, std::move(t));
  for (const auto& [key, l] : mine) {
    if (claimed.count(key)) continue;
    auto t = tallies.find(key);
    if (t == tallies.end() || t->second.compared == 0) continue;
    auto w = t->second.wins.find(l.claim.value("value", nlohmann::json()).dump());
    const int wins = w == t->second.wins.end() ? 0 : w->second;
    if (2 * wins < t->second.compared) {
      supersede_lesson(db, l.id, 0);
      ++report.superseded;
    }
  }

  // Lessons added before this hone's local embedding (or by a merge) get its vector, so that
  // near-duplicates can be found and every lesson takes part in local vector search.
  for (const auto& l : lessons_without_vector(db, local_embedding_model()))
    put_lesson_vector(db, l.id, local_embedding(lesson_text(l)));
  report.merged = merge_near_duplicates(db, o);
  return report;
}

}  // namespace sql

}  // namespace hone
