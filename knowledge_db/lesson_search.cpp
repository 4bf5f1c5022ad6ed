#include "knowledge_db/lesson_search.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "knowledge_db/lessons_table.hpp"
#include "knowledge_db/rank_fusion.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "knowledge_db/stopwords.hpp"

namespace hone {

std::string fts_query(std::string_view text) {
  std::string out, piece;
  auto flush = [&] {
    bool has_word = std::any_of(piece.begin(), piece.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
    std::string lower;
    for (char c : piece) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (has_word && !is_stopword(lower)) {
      std::string quoted = "\"";
      for (char c : piece) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      out += (out.empty() ? "" : " OR ") + quoted + "\"";
    }
    piece.clear();
  };
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) flush();
    else piece += c;
  }
  flush();
  return out;
}

namespace sql {

namespace {

// Ids of the lessons the filters let through: status and tag prefixes.
std::set<std::int64_t> eligible(SqliteConnection& db, const LessonQuery& q) {
  std::string where = q.include_superseded ? "1" : "status = 'active'";
  std::vector<std::string> prefixes;
  for (auto p : q.tag_prefixes) {
    while (!p.empty() && p.back() == '/') p.pop_back();
    if (p.empty()) continue;
    prefixes.push_back(p);
    // Whole segments only: "op/gemv" takes "op/gemv" and "op/gemv/...", never "op/gemv2".
    where += " AND EXISTS (SELECT 1 FROM json_each(lessons.tags) WHERE value = ? OR substr(value, 1, length(?) + 1) = ? || '/')";
  }
  auto row = db.prepare("SELECT id FROM lessons WHERE " + where);
  int index = 0;
  for (const auto& p : prefixes)
    for (int i = 0; i < 3; ++i) row.bind(++index, p);
  std::set<std::int64_t> ids;
  while (row.step()) ids.insert(row.column_int64(0));
  return ids;
}

std::vector<std::int64_t> keyword_ranking(SqliteConnection& db, const std::string& text, const std::set<std::int64_t>& ok) {
  std::vector<std::int64_t> ranked;
  const std::string match = fts_query(text);
  if (match.empty()) return ranked;
  // Situation and action weigh more than the tags, which repeat across many lessons.
  auto row = db.prepare(
      "SELECT rowid FROM lessons_fts WHERE lessons_fts MATCH ? ORDER BY bm25(lessons_fts, 2.0, 2.0, 1.0), rowid");
  row.bind(1, match);
  while (row.step())
    if (ok.count(row.column_int64(0))) ranked.push_back(row.column_int64(0));
  return ranked;
}

std::vector<std::int64_t> vector_ranking(SqliteConnection& db, const Embedding& query, const std::set<std::int64_t>& ok) {
  std::vector<std::pair<double, std::int64_t>> scored;
  if (query.values.empty()) return {};
  for (const auto& [id, v] : lesson_vectors(db, query.model)) {
    if (!ok.count(id) || v.values.size() != query.values.size()) continue;
    double s = cosine_similarity(query, v);
    // Nothing in common (all features orthogonal) is no evidence at all.
    if (s > 0) scored.push_back({s, id});
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::int64_t> ranked;
  for (const auto& s : scored) ranked.push_back(s.second);
  return ranked;
}

}  // namespace

std::vector<LessonHit> search_lessons(SqliteConnection& db, const LessonQuery& q, const Embedding& query_vector) {
  const auto ok = eligible(db, q);
  std::vector<std::int64_t> keyword, vector;
  if (q.ranking != LessonRanking::vector) keyword = keyword_ranking(db, q.text, ok);
  if (q.ranking != LessonRanking::keyword) vector = vector_ranking(db, query_vector, ok);
  std::vector<LessonHit> hits;
  for (const auto& f : reciprocal_rank_fusion({keyword, vector}, q.rrf_k)) {
    if (hits.size() >= q.top) break;
    auto l = lesson(db, f.id);
    if (!l) continue;
    hits.push_back({std::move(*l), f.score, f.ranks[0], f.ranks[1]});
  }
  return hits;
}

}  // namespace sql

}  // namespace hone
