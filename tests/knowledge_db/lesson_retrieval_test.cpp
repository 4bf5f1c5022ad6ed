// Retrieval quality on realistic lessons (tests/data/lessons): hit@3 of keyword search (BM25)
// alone, vector search (local n-gram embedding) alone, and the two fused. The queries are of two
// kinds: paraphrases whose word forms differ from the lesson's (BM25 misses them, n-grams catch
// them) and keyword queries on rare exact terms (which n-gram vectors blur).
#include <doctest/doctest.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace hone;

namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream in(std::string(HONE_TEST_DATA_DIR) + "/lessons/" + name);
  REQUIRE_MESSAGE(in, "cannot read tests/data/lessons/" << name);
  return nlohmann::json::parse(in);
}

struct Fixture {
  test::TempDir dir;
  KnowledgeDb db{dir / "lessons.db"};
  std::map<std::int64_t, std::string> name_of;  // lesson id -> name in lessons.json
  nlohmann::json queries = load("queries.json");

  Fixture() {
    for (const auto& j : load("lessons.json")) {
      LessonRecord l;
      l.situation = j["situation"];
      l.action = j["action"];
      l.tags = j["tags"].get<std::vector<std::string>>();
      name_of[db.add_lesson(l)] = j["name"];
    }
  }

  // Share of the queries with an expected lesson among the first three.
  double hit_at_3(LessonRanking ranking, std::string& misses) {
    int hits = 0;
    for (const auto& q : queries) {
      LessonQuery query;
      query.text = q["query"];
      query.top = 3;
      query.ranking = ranking;
      bool hit = false;
      std::string got;
      for (const auto& h : db.search_lessons(query)) {
        got += " " + name_of[h.lesson.id];
        for (const auto& e : q["expected"]) hit = hit || e == name_of[h.lesson.id];
      }
      hits += hit;
      if (!hit) misses += "\n  '" + q["query"].get<std::string>() + "' got" + got;
    }
    return double(hits) / queries.size();
  }
};

}  // namespace

TEST_CASE("retrieval: fused keyword and vector search finds more lessons in the top 3 than either alone") {
  Fixture f;
  REQUIRE(f.name_of.size() >= 30);
  REQUIRE(f.queries.size() >= 10);
  std::string keyword_misses, vector_misses, fused_misses;
  const double keyword = f.hit_at_3(LessonRanking::keyword, keyword_misses);
  const double vector = f.hit_at_3(LessonRanking::vector, vector_misses);
  const double fused = f.hit_at_3(LessonRanking::fused, fused_misses);
  MESSAGE("hit@3 over " << f.queries.size() << " queries and " << f.name_of.size() << " lessons: BM25 " << keyword
                        << ", vectors " << vector << ", fused " << fused);
  MESSAGE("BM25 misses:" << keyword_misses);
  MESSAGE("vector misses:" << vector_misses);
  MESSAGE("fused misses:" << fused_misses);
  CHECK(fused > keyword);
  CHECK(fused > vector);
}
