// How a spec declares index inputs, addressed buffers, scratch, aliases and chained calls, how
// hone draws them, and the errors that name the spec and the problem when one is malformed.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <fstream>

#include "core/index_inputs.hpp"
#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/scratch_fill.hpp"

using namespace hone;

namespace {

const std::filesystem::path kFamilies = std::filesystem::path(HONE_TEST_DATA_DIR) / "families";

// A copy of a test family whose spec.json `edit` changed; removed with the object.
struct EditedFamily {
  std::filesystem::path dir;
  template <class F>
  EditedFamily(const std::string& name, F edit) {
    static int n = 0;
    dir = std::filesystem::temp_directory_path() / ("hone-spec-" + std::to_string(::getpid()) + "-" + std::to_string(n++)) / name;
    std::filesystem::create_directories(dir.parent_path());
    std::filesystem::copy(kFamilies / name, dir, std::filesystem::copy_options::recursive);
    nlohmann::json j = read_json_file(dir / "spec.json");
    edit(j);
    std::ofstream(dir / "spec.json") << j.dump(2);
  }
  ~EditedFamily() { std::filesystem::remove_all(dir.parent_path()); }
  std::string spec() const { return (dir / "spec.json").string(); }
};

nlohmann::json& arg(nlohmann::json& spec, const std::string& name) {
  for (auto& a : spec["args"])
    if (a["name"] == name) return a;
  throw std::runtime_error("no arg " + name);
}

template <class F>
void check_refused(const std::string& family, F edit, const std::string& problem) {
  EditedFamily f(family, edit);
  CAPTURE(problem);
  try {
    load_op_spec(f.dir);
    FAIL("the spec was accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_MESSAGE(what.find(f.spec()) == 0, what);
    CHECK_MESSAGE(what.find(problem) != std::string::npos, what);
  }
}

}  // namespace

TEST_CASE("index specs: the test families load with their index inputs in dependency order") {
  const OpSpec paged = load_op_spec(kFamilies / "paged_sum");
  REQUIRE(paged.index_order.size() == 2);
  CHECK(paged.args[paged.index_order[0]].name == "seq_lens");  // block_table depends on it
  CHECK(paged.args[paged.index_order[1]].name == "block_table");
  const ArgSpec* cache = paged.find_arg("cache");
  REQUIRE(cache->addressed);
  CHECK(cache->addressed->index == "block_table");
  CHECK(paged.dynamic == std::set<std::string>{"batch", "ctx"});

  const OpSpec slots = load_op_spec(kFamilies / "slot_update");
  CHECK(slots.chain_calls == 3);
  CHECK(slots.aliases == std::vector<std::pair<std::string, std::string>>{{"out", "x"}});
  const OpSpec split = load_op_spec(kFamilies / "split_sum");
  CHECK(split.find_arg("partial")->role == ArgRole::Scratch);
  CHECK(split.find_arg("count")->zeroed.text() == "rows");
}

TEST_CASE("index specs: malformed declarations are refused naming the spec and the problem") {
  check_refused("paged_sum", [](auto& j) { arg(j, "seq_lens")["init"]["index"] = "lengths"; },
                "init.index 'lengths' is not an index generator (known: block_scales, block_table, e4m3_weights, expert_ids, int4_weights, int4_zeros, positions, seq_lens, slots)");
  check_refused("paged_sum", [](auto& j) { arg(j, "seq_lens")["init"].erase("max"); }, "lacks 'max', a parameter of seq_lens");
  check_refused("paged_sum", [](auto& j) { arg(j, "seq_lens")["init"]["longest"] = 3; }, "init.longest is not a parameter of seq_lens");
  check_refused("paged_sum", [](auto& j) { arg(j, "seq_lens")["init"]["max"] = "context"; }, "uses 'context', which is not defined there");
  check_refused("paged_sum", [](auto& j) { arg(j, "block_table")["init"]["lengths"] = "cache"; },
                "init.lengths names 'cache', which is not an index input");
  check_refused("paged_sum", [](auto& j) { arg(j, "block_table")["dims"] = {"batch"}; }, "a block_table input has 2 dims, 'block_table' has 1");
  check_refused("paged_sum", [](auto& j) { arg(j, "seq_lens")["type"] = "const float*"; }, "an index input holds integers, not f32");
  check_refused("paged_sum", [](auto& j) { arg(j, "block_table")["init"] = {{"index", "e4m3_weights"}, {"rows", 1}, {"cols", 1}}; },
                "a e4m3_weights input holds fp8, not i32");
  check_refused("paged_sum", [](auto& j) { arg(j, "cache")["addressed_by"]["index"] = "seq_lens"; },
                "'cache' addressed_by.index names 'seq_lens', which is not an index input that addresses items");
  check_refused("paged_sum", [](auto& j) { arg(j, "cache")["addressed_by"]["offset"] = "slot * D"; }, "uses 'slot'");
  check_refused("paged_sum", [](auto& j) { arg(j, "out")["addressed_by"] = {{"index", "block_table"}, {"extent", "D"}}; },
                "only in and inout buffers are addressed by an index");
  check_refused("slot_update", [](auto& j) { j["aliases"] = nlohmann::json::array({nlohmann::json::array({"out", "state"})}); }, "the second must be an in buffer");
  check_refused("slot_update", [](auto& j) { j["aliases"] = nlohmann::json::array({nlohmann::json::array({"x", "out"})}); }, "the first must be an out buffer");
  check_refused("slot_update", [](auto& j) { arg(j, "x")["dims"] = {"B", "D + 1"}; }, "may alias only one of the same dtype and dims");
  check_refused("slot_update", [](auto& j) { j["chain"] = {{"calls", 1}}; }, "chain must be {\"calls\": N} with 2 <= N <= 16");
  check_refused("expert_rowsum", [](auto& j) { j["chain"] = {{"calls", 2}}; }, "chain: calls in a row carry in-out buffers");
  check_refused("split_sum", [](auto& j) { arg(j, "x")["zeroed"] = 1; }, "only a scratch buffer has a zeroed part");
  check_refused("split_sum", [](auto& j) { arg(j, "partial")["role"] = "temp"; }, "role must be in, out, inout or scratch");
  check_refused("split_sum", [](auto& j) { arg(j, "partial")["init"] = {{"dist", "normal"}}; }, "only in and inout buffers have an init");
  check_refused("paged_sum", [](auto& j) { j["input_cases"] = {{{"name", "c"}, {"args", {{"seq_lens", {{"dist", "normal"}}}}}}}; },
                "an index input: its generator's modes are its cases");
  check_refused("paged_sum", [](auto& j) { j["input_cases"] = {{{"name", "c"}, {"args", nlohmann::json::object()}, {"scalars", {{"D", 2}}}}}; },
                "scalars.D must be a number for a float scalar argument");
}

TEST_CASE("index specs: a cycle between index inputs is refused") {
  check_refused("paged_sum",
                [](auto& j) {
                  // seq_lens drawn from the block table and the block table from seq_lens.
                  arg(j, "seq_lens")["init"] = {{"index", "block_table"}, {"lengths", "block_table"}, {"page", "PAGE"}, {"pages", 8}};
                  arg(j, "seq_lens")["dims"] = {"batch", "ceil_div(ctx, PAGE)"};
                },
                "depend on each other in a cycle");
}

TEST_CASE("addressed buffers: only what the index addresses is drawn, the rest is NaN") {
  const OpSpec op = load_op_spec(kFamilies / "paged_sum");
  const Bindings shape{{"batch", 4}, {"ctx", 40}, {"PAGE", 4}, {"D", 8}};
  std::vector<HostTensor> host(op.args.size());
  draw_index_inputs(op, shape, 7, {}, nullptr, host);
  const ArgSpec& cache = *op.find_arg("cache");
  const auto ranges = addressed_ranges(op, cache, shape, host);
  std::int64_t addressed = 0;
  for (const auto& r : ranges) addressed += r.end - r.begin;
  std::int64_t tokens = 0;
  const HostTensor& lens = host[op.arg_index("seq_lens")];
  for (std::size_t b = 0; b < lens.count; ++b) tokens += static_cast<std::int64_t>(lens.at(b));
  CHECK(addressed == tokens * 8);

  InputDist dist;
  Rng rng(3);
  const auto n = static_cast<std::size_t>(cache.elements(shape));
  const HostTensor t = generate_addressed(DType::f32, n, dist, rng, 43, ranges);
  std::int64_t finite = 0;
  for (std::size_t i = 0; i < n; ++i) finite += std::isfinite(t.at(i));
  CHECK(finite == addressed);
  for (const auto& r : ranges) CHECK(std::isfinite(t.at(static_cast<std::size_t>(r.begin))));

  const HostTensor bf = generate_addressed(DType::bf16, 64, dist, rng, 1, {{8, 16}});
  CHECK(std::isnan(bf.at(0)));
  CHECK(std::isfinite(bf.at(8)));
  CHECK(std::isnan(bf.at(16)));
  const HostTensor ints = generate_addressed(DType::i32, 4, dist, rng, 1, {});
  CHECK(ints.at(0) == 0x7f7f7f7f);

  // Past the first block of poison, which is copied on: every element outside the range, to the last.
  const std::size_t big = 3 * 4096 + 5;
  const HostTensor wide = generate_addressed(DType::bf16, big, dist, rng, 1, {{5000, 5010}});
  std::size_t poisoned = 0;
  for (std::size_t i = 0; i < big; ++i) poisoned += std::isnan(wide.at(i));
  CHECK(poisoned == big - 10);
  CHECK(std::isnan(wide.at(big - 1)));
}

TEST_CASE("addressed state pools: the states no slot addresses hold finite copies of a drawn block, the addressed ones fresh draws") {
  // A pool of 64 DeltaNet states holds 33M floats: drawing them all for every check took most of a
  // validation's time at batch 1, where one state is addressed.
  InputDist dist;
  dist.std = 0.1;
  Rng rng(5);
  const std::size_t n = 3 * 10000 + 17;
  const HostTensor t = generate_addressed(DType::f32, n, dist, rng, 3, {{20000, 20100}}, AddressedRest::drawn_copies);
  std::size_t finite = 0;
  for (std::size_t i = 0; i < n; ++i) finite += std::isfinite(t.at(i));
  CHECK(finite == n);
  CHECK(t.at(4096) == t.at(0));  // the block repeats over what no slot addresses
  CHECK(t.at(n - 1) == t.at((n - 1) % 4096));
  CHECK(t.at(20000) != t.at(20000 % 4096));  // an addressed state is drawn for itself
  CHECK(t.at(20099) != t.at(20099 % 4096));
  CHECK(t.at(20100) == t.at(20100 % 4096));
  double sum_sq = 0;
  for (std::size_t i = 0; i < 4096; ++i) sum_sq += t.at(i) * t.at(i);
  CHECK(std::sqrt(sum_sq / 4096) == doctest::Approx(0.1).epsilon(0.05));
}

TEST_CASE("addressed buffers: an item outside the buffer is a spec error, named") {
  // Experts of 2 * N elements in a buffer of E * N: every expert from E / 2 on runs past its end.
  EditedFamily f("expert_rowsum", [](auto& j) { arg(j, "w")["addressed_by"]["extent"] = "2 * N"; });
  const OpSpec op = load_op_spec(f.dir);
  const Bindings shape{{"tokens", 5}, {"TOPK", 3}, {"E", 16}, {"N", 32}};
  std::vector<HostTensor> host(op.args.size());
  draw_index_inputs(op, shape, 7, {{"ids", "disjoint"}}, nullptr, host);  // 15 of the 16 experts
  CHECK_THROWS_WITH_AS(addressed_ranges(op, *op.find_arg("w"), shape, host),
                       doctest::Contains("of 'ids' addresses elements"), InputError);
}

TEST_CASE("adversarial index modes: every mode its generator offers at the shape") {
  const OpSpec paged = load_op_spec(kFamilies / "paged_sum");
  const auto modes = adversarial_index_modes(paged, {{"batch", 4}, {"ctx", 40}, {"PAGE", 4}, {"D", 8}});
  const std::vector<std::pair<std::string, std::string>> expected{{"seq_lens", "one_long"},   {"seq_lens", "all_padded_but_one"},
                                                                  {"seq_lens", "length_one"}, {"seq_lens", "page_edges"},
                                                                  {"seq_lens", "full"},       {"block_table", "reverse"}};
  CHECK(modes == expected);
  const OpSpec experts = load_op_spec(kFamilies / "expert_rowsum");
  CHECK(adversarial_index_modes(experts, {{"tokens", 5}, {"TOPK", 3}, {"E", 16}, {"N", 32}}).size() == 3);
}

TEST_CASE("scratch fill: NaN and finite garbage of every magnitude, the zeroed part zero") {
  const HostTensor t = scratch_fill(DType::f32, 4096, 16, 11);
  int nan = 0, finite = 0, huge = 0, negative = 0;
  for (std::size_t i = 0; i < 16; ++i) CHECK(t.at(i) == 0.0);
  for (std::size_t i = 16; i < t.count; ++i) {
    const double v = t.at(i);
    if (std::isnan(v)) ++nan;
    else {
      CHECK(std::isfinite(v));
      ++finite;
      huge += std::fabs(v) > 1e10;
      negative += v < 0;
    }
  }
  CHECK(nan > 1500);
  CHECK(finite > 1500);
  CHECK(huge > 500);
  CHECK(negative > 500);
  const HostTensor h = scratch_fill(DType::f16, 512, 0, 2);
  for (std::size_t i = 0; i < h.count; ++i) CHECK_FALSE(std::isinf(h.at(i)));
  const HostTensor a = scratch_fill(DType::i32, 64, 0, 5), b = scratch_fill(DType::i32, 64, 0, 6);
  CHECK(a.bytes != b.bytes);
}
