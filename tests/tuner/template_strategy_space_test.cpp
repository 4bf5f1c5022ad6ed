#include <doctest/doctest.h>

#include "tuner/template_strategy_space.hpp"

using namespace hone;

TEST_CASE("template strategy space: the variant and the union of the variants' parameters, -1 where a variant lacks one") {
  Variant warp, block;
  warp.name = "warp";
  block.name = "block";
  std::vector<TemplatePoint> points{{&warp, {{"rows", 2}}}, {&block, {{"rows", 1}, {"threads", 256}}}, {&warp, {{"rows", 4}}}};
  auto s = template_strategy_space(points);
  CHECK(s->params == std::vector<std::string>{"variant", "rows", "threads"});
  REQUIRE(s->size() == 3);
  CHECK(s->points[0] == std::vector<double>{0, 2, -1});
  CHECK(s->points[1] == std::vector<double>{1, 1, 256});
  CHECK(s->points[2] == std::vector<double>{0, 4, -1});
  CHECK(s->features.empty());
  CHECK(s->strata == std::vector<std::size_t>{0, 1, 0});  // the variant: the first draws take one of each
}
