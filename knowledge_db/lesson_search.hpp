#pragma once
// Retrieval of lessons for the next search: filter by tag prefix, then fuse a keyword ranking
// (SQLite FTS5, BM25) with a vector ranking (cosine similarity between vectors of one model) by
// reciprocal rank fusion. Keywords find exact terms ("split-K", "sm_80") that vectors blur;
// vectors find lessons phrased differently from the query.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge_db/embedding.hpp"
#include "knowledge_db/lesson.hpp"

namespace hone {

class SqliteConnection;

enum class LessonRanking { fused, keyword, vector };

struct LessonQuery {
  std::string text;
  std::vector<std::string> tag_prefixes;  // a lesson must have a tag under each of them
  std::size_t top = 5;
  LessonRanking ranking = LessonRanking::fused;
  bool include_superseded = false;
  // RRF's constant: smaller trusts the top of each list more. 60 is the paper's default; on
  // tests/data/lessons any k from 1 to 60 gives the same hit@3.
  double rrf_k = 60;
};

struct LessonHit {
  LessonRecord lesson;
  double score = 0;
  int keyword_rank = 0;  // from 1; 0 when the lesson shares no term with the query
  int vector_rank = 0;   // from 1; 0 when it has no vector of the query's model
};

/// The FTS5 query for free text: every whitespace-separated piece that has a letter or digit
/// and is not a stopword becomes a quoted phrase (so "sm_90", "M<=4" and "split-K" cannot break the syntax), joined
/// by OR so that a lesson sharing some of the words still ranks. "" when there is none.
std::string fts_query(std::string_view text);

namespace sql {
/// The best `query.top` lessons for the query; `query_vector` is the query's embedding, and only
/// lessons with a vector of its model take part in the vector ranking.
std::vector<LessonHit> search_lessons(SqliteConnection& db, const LessonQuery& query, const Embedding& query_vector);
}  // namespace sql

}  // namespace hone
