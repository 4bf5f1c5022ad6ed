// `hone lessons add|search|list|distill`: the lessons hone keeps for the next search.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/existing_db.hpp"
#include "core/input_error.hpp"
#include "knowledge_db/embedder.hpp"
#include "knowledge_db/knowledge_db.hpp"

namespace hone::cli {

namespace {

struct EmbeddingFlags {
  std::string url, key, model;
};

struct LessonsArgs {
  std::string db = "hone.db";
  EmbeddingFlags embeddings;
  // add
  std::string situation, action, tags, evidence;
  double confidence = 0.5;
  // search and list
  std::string query, prefixes, ranking = "fused";
  std::size_t top = 5;
  bool json = false, all = false;
  // distill
  DistillOptions distill;
};

Embedder make_embedder(const EmbeddingFlags& f) {
  return Embedder(embedding_endpoint(f.url, f.key, f.model), [](const std::string& m) { std::cerr << "hone: " << m << "\n"; });
}

nlohmann::json to_json(const LessonRecord& l) {
  return {{"id", l.id},         {"situation", l.situation}, {"action", l.action},       {"tags", l.tags},
          {"confidence", l.confidence}, {"status", l.status}, {"origin", l.origin},   {"evidence", l.evidence},
          {"superseded_by", l.superseded_by ? nlohmann::json(l.superseded_by) : nlohmann::json()}};
}

void print(const LessonRecord& l, const std::string& extra) {
  std::string tags;
  for (const auto& t : l.tags) tags += (tags.empty() ? "" : " ") + t;
  std::cout << fmt::format("#{} {}[{}] confidence {:.2f}{}\n", l.id, extra, tags, l.confidence,
                           l.status == "active" ? "" : " (" + l.status + (l.superseded_by ? fmt::format(" by #{}", l.superseded_by) : "") + ")");
  std::cout << "  situation: " << l.situation << "\n  action:    " << l.action << "\n";
  if (!l.evidence.empty()) std::cout << fmt::format("  evidence:  {} results\n", l.evidence.size());
}

std::vector<std::int64_t> parse_ids(const std::string& list) {
  std::vector<std::int64_t> ids;
  for (const auto& item : split_tags(list)) {
    try {
      std::size_t used = 0;
      ids.push_back(std::stoll(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw InputError("--evidence: '" + item + "' is not a result id");
    }
  }
  return ids;
}

int run_add(const LessonsArgs& a) {
  LessonRecord l;
  l.situation = a.situation;
  l.action = a.action;
  l.tags = split_tags(a.tags);
  l.confidence = a.confidence;
  l.evidence = parse_ids(a.evidence);
  validate_lesson(l);  // before the database is created or the endpoint called
  KnowledgeDb db(a.db);
  Embedder embedder = make_embedder(a.embeddings);
  std::vector<Embedding> vectors;
  if (embedder.uses_endpoint()) vectors.push_back(embedder.embed(lesson_text(l)));
  try {
    db.add_lesson(l, vectors);
  } catch (const DbError& e) {
    // Evidence must be results of this database: its foreign key says so.
    if (!l.evidence.empty() && std::string(e.what()).find("FOREIGN KEY") != std::string::npos)
      throw InputError(a.db + ": --evidence names a result that is not in the database");
    throw;
  }
  std::cout << "added lesson #" << l.id << " to " << a.db << "\n";
  return 0;
}

LessonRanking ranking_of(const std::string& name) {
  if (name == "fused") return LessonRanking::fused;
  if (name == "keyword") return LessonRanking::keyword;
  if (name == "vector") return LessonRanking::vector;
  throw InputError("--ranking: '" + name + "' is not fused, keyword or vector");
}

int run_search(const LessonsArgs& a) {
  LessonQuery q;
  q.text = a.query;
  q.tag_prefixes = split_tags(a.prefixes);
  q.top = a.top;
  q.ranking = ranking_of(a.ranking);
  q.include_superseded = a.all;
  if (q.top == 0) throw InputError("--top must be at least 1");
  auto db = open_existing_db(a.db);
  Embedder embedder = make_embedder(a.embeddings);
  // Lessons added offline, or before the endpoint was configured, get its vectors now.
  if (embedder.uses_endpoint()) embed_missing_lessons(*db, embedder);
  const Embedding query_vector = embedder.embed(a.query);
  const auto hits = db->search_lessons(q, query_vector);
  if (a.json) {
    nlohmann::json out = {{"query", a.query}, {"model", query_vector.model}, {"hits", nlohmann::json::array()}};
    for (const auto& h : hits) {
      auto j = to_json(h.lesson);
      j["score"] = h.score;
      j["keyword_rank"] = h.keyword_rank;
      j["vector_rank"] = h.vector_rank;
      out["hits"].push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (hits.empty()) std::cout << "no lessons match\n";
  for (const auto& h : hits)
    print(h.lesson, fmt::format("score {:.4f} (keyword rank {}, vector rank {}) ", h.score,
                                h.keyword_rank ? std::to_string(h.keyword_rank) : "-",
                                h.vector_rank ? std::to_string(h.vector_rank) : "-"));
  return 0;
}

int run_list(const LessonsArgs& a) {
  auto db = open_existing_db(a.db);
  const auto prefixes = split_tags(a.prefixes);
  nlohmann::json out = nlohmann::json::array();
  int shown = 0;
  for (const auto& l : db->lessons(a.all)) {
    bool match = true;
    for (const auto& p : prefixes)
      match = match && std::any_of(l.tags.begin(), l.tags.end(), [&](const std::string& t) { return tag_has_prefix(t, p); });
    if (!match) continue;
    ++shown;
    if (a.json) out.push_back(to_json(l));
    else print(l, "");
  }
  if (a.json) std::cout << out.dump(2) << "\n";
  else if (!shown) std::cout << "no lessons in " << a.db << "\n";
  return 0;
}

int run_distill(const LessonsArgs& a) {
  if (a.distill.min_support < 1) throw InputError("--support must be at least 1");
  auto db = open_existing_db(a.db);
  DistillReport r = db->distill_lessons(a.distill);
  Embedder embedder = make_embedder(a.embeddings);
  if (embedder.uses_endpoint()) embed_missing_lessons(*db, embedder);
  std::cout << a.db << ": " << r.summary() << "\n";
  return 0;
}

void add_embedding_flags(CLI::App* cmd, EmbeddingFlags& f) {
  cmd->add_option("--embeddings-url", f.url,
                  "OpenAI-compatible API base, e.g. https://api.openai.com/v1 (default: $OPENAI_BASE_URL; none: local "
                  "embedding)");
  cmd->add_option("--embeddings-key", f.key, "API key (default: $OPENAI_API_KEY; never stored)");
  cmd->add_option("--embeddings-model", f.model, "embedding model (default: $HONE_EMBEDDING_MODEL or text-embedding-3-small)");
}

}  // namespace

void add_lessons_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<LessonsArgs>();
  auto* cmd = app.add_subcommand("lessons", "Keep, find and distil lessons: situations paired with actions");
  cmd->require_subcommand(1);

  auto* add = cmd->add_subcommand("add", "Add a lesson");
  add->add_option("--situation", a->situation, "when it applies, e.g. 'gemv, M<=4, K>=4096 on sm_90'")->required();
  add->add_option("--action", a->action, "what to do, e.g. 'one warp per output row with 16-byte loads'")->required();
  add->add_option("--tags", a->tags, "comma-separated paths, e.g. op/gemv,arch/sm_90,technique/vectorized-loads");
  add->add_option("--confidence", a->confidence, "0..1")->capture_default_str();
  add->add_option("--evidence", a->evidence, "comma-separated result ids it rests on");
  add->add_option("--db", a->db, "SQLite database")->capture_default_str();
  add_embedding_flags(add, a->embeddings);
  add->callback([a, &action] { action = [a] { return run_add(*a); }; });

  auto* search = cmd->add_subcommand("search", "Find the lessons for a situation: keywords and vectors, fused");
  search->add_option("query", a->query, "what you are about to tune, in words")->required();
  search->add_option("--tags", a->prefixes, "only lessons with a tag under each of these comma-separated prefixes");
  search->add_option("--top", a->top, "how many lessons")->capture_default_str();
  search->add_option("--ranking", a->ranking, "fused, keyword (BM25 only) or vector (only)")->capture_default_str();
  search->add_flag("--all", a->all, "include superseded lessons");
  search->add_flag("--json", a->json, "JSON output");
  search->add_option("--db", a->db, "SQLite database")->capture_default_str();
  add_embedding_flags(search, a->embeddings);
  search->callback([a, &action] { action = [a] { return run_search(*a); }; });

  auto* list = cmd->add_subcommand("list", "List the active lessons");
  list->add_option("--tags", a->prefixes, "only lessons with a tag under each of these comma-separated prefixes");
  list->add_flag("--all", a->all, "include superseded lessons");
  list->add_flag("--json", a->json, "JSON output");
  list->add_option("--db", a->db, "SQLite database")->capture_default_str();
  list->callback([a, &action] { action = [a] { return run_list(*a); }; });

  auto* distill = cmd->add_subcommand("distill", "Mine the results for lessons, merge duplicates, retire contradicted ones");
  distill->add_option("--support", a->distill.min_support, "tasks a parameter value must win")->capture_default_str();
  distill->add_option("--min-speedup", a->distill.min_speedup, "median margin over the next value")->capture_default_str();
  distill->add_option("--db", a->db, "SQLite database")->capture_default_str();
  add_embedding_flags(distill, a->embeddings);
  distill->callback([a, &action] { action = [a] { return run_distill(*a); }; });
}

}  // namespace hone::cli
