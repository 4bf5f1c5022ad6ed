// The local embedding and the vector helpers.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "knowledge_db/local_embedding.hpp"
#include "knowledge_db/rank_fusion.hpp"

using namespace hone;

namespace {
double sim(const std::string& a, const std::string& b) { return cosine_similarity(local_embedding(a), local_embedding(b)); }
}  // namespace

TEST_CASE("embedding: the local embedding is deterministic, unit length and named with its dimension") {
  auto a = local_embedding("one warp per output row with 16-byte loads");
  auto b = local_embedding("one warp per output row with 16-byte loads");
  CHECK(a.values == b.values);
  CHECK(a.model == local_embedding_model());
  CHECK(a.model.find(std::to_string(kLocalEmbeddingDim)) != std::string::npos);
  REQUIRE(a.values.size() == static_cast<std::size_t>(kLocalEmbeddingDim));
  double norm = 0;
  for (float v : a.values) norm += double(v) * v;
  CHECK(std::sqrt(norm) == doctest::Approx(1.0).epsilon(1e-5));
  // Nothing to embed is a zero vector, similar to nothing.
  auto empty = local_embedding("the of --");
  for (float v : empty.values) CHECK(v == 0.0f);
  CHECK(cosine_similarity(empty, a) == 0.0);
}

TEST_CASE("embedding: word forms that keyword search treats as different words stay close") {
  const double spelling = sim("vectorised loads", "vectorized loads");
  const double joined = sim("rmsnorm kernel", "rms norm kernel");
  const double unrelated = sim("vectorised loads", "split the reduction across blocks");
  CHECK(spelling > 0.6);
  CHECK(joined > 0.4);
  CHECK(unrelated < 0.2);
  CHECK(sim("splitK atomics", "split-K with an atomicAdd epilogue") > sim("splitK atomics", "one warp per output row"));
}

TEST_CASE("embedding: vectors survive the trip through a blob, and normalising keeps zero at zero") {
  std::vector<float> v = {1.5f, -0.0f, 3.25e-7f, -42.0f, std::numeric_limits<float>::min()};
  CHECK(vector_from_blob(vector_to_blob(v)) == v);
  CHECK(vector_to_blob({1.0f}) == std::string("\x00\x00\x80\x3f", 4));  // little-endian float32
  CHECK_THROWS_AS(vector_from_blob("abc"), std::invalid_argument);
  std::vector<float> zero(4, 0.0f);
  l2_normalise(zero);
  CHECK(zero == std::vector<float>(4, 0.0f));
}

TEST_CASE("rank fusion: an item high in both lists beats one that tops only one") {
  // 1 tops the keyword list only; 2 is second in both.
  auto fused = reciprocal_rank_fusion({{1, 2, 3}, {4, 2, 5}}, 60);
  REQUIRE(fused.size() == 5);
  CHECK(fused[0].id == 2);
  CHECK(fused[0].ranks == std::vector<int>{2, 2});
  CHECK(fused[0].score == doctest::Approx(2.0 / 62));
  // 1 and 4 tie on score; ties go by best rank, then id.
  CHECK(fused[1].id == 1);
  CHECK(fused[2].id == 4);
  CHECK(fused[2].ranks == std::vector<int>{0, 1});
}

TEST_CASE("rank fusion: an id listed twice counts once, and empty lists fuse to nothing") {
  auto fused = reciprocal_rank_fusion({{7, 7, 8}}, 10);
  REQUIRE(fused.size() == 2);
  CHECK(fused[0].score == doctest::Approx(1.0 / 11));
  CHECK(fused[1].ranks == std::vector<int>{3});
  CHECK(reciprocal_rank_fusion({{}, {}}, 60).empty());
}
