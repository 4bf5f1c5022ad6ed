// `hone db check|merge`, and `hone tune` refusing a damaged database, through the real binary.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "support/file_bytes.hpp"
#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using Run = hone::test::CommandResult;
using hone::test::read_bytes;
using hone::test::write_bytes;

Run hone_cmd(const std::string& args) {
  return hone::test::run_command("env -u OPENAI_BASE_URL -u OPENAI_API_KEY " + std::string(HONE_BINARY_DIR) + "/hone " + args);
}

struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("hone-db-cli-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

const std::string kTiny = std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json";

void add_lesson(const std::string& db, const std::string& situation) {
  Run r = hone_cmd("lessons add --situation '" + situation + "' --action 'VEC=8' --tags op/rmsnorm --db " + db);
  REQUIRE_MESSAGE(r.code == 0, r.output);
}

// A hone database with some pages overwritten.
std::string damaged_copy_of(const std::string& db) {
  std::string bytes = read_bytes(db);
  REQUIRE(bytes.size() > 8 * 4096);
  for (std::size_t i = 4 * 4096; i < 6 * 4096; ++i) bytes[i] = static_cast<char>(0x5a ^ (i * 31));
  return bytes;
}

}  // namespace

TEST_CASE("db cli: check says ok for a whole database and exit 1 for a damaged one") {
  Scratch s("check");
  const std::string db = s / "hone.db";
  add_lesson(db, "rmsnorm at hidden=4096");
  Run r = hone_cmd("db check --db " + db);
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find(db + ": ok (schema version ") != std::string::npos);

  const std::string damaged = s / "damaged.db";
  write_bytes(damaged, damaged_copy_of(db));
  r = hone_cmd("db check --db " + damaged);
  CHECK_MESSAGE(r.code == 1, r.output);
  CHECK(r.output.find("problems found") != std::string::npos);

  r = hone_cmd("db check --db " + s / "none.db");
  CHECK(r.code == 2);
  CHECK_FALSE(fs::exists(s / "none.db"));
  write_bytes(s / "notes.txt", "notes\n");
  CHECK(hone_cmd("db check --db " + s / "notes.txt").code == 2);
  CHECK(hone_cmd("db --help").code == 0);
  CHECK(hone_cmd("db").code == 2);
}

TEST_CASE("db cli: tune and lessons refuse a damaged database with exit 2 and leave it byte for byte") {
  Scratch s("corrupt");
  const std::string db = s / "hone.db";
  add_lesson(db, "rmsnorm at hidden=4096");
  const std::string damaged = s / "damaged.db";
  write_bytes(damaged, damaged_copy_of(db));
  const std::string before = read_bytes(damaged);
  for (const std::string& c : {"tune --model " + kTiny + " --device emu --budget 2", std::string("lessons list"),
                              std::string("lessons add --situation s --action a")}) {
    CAPTURE(c);
    Run r = hone_cmd(c + " --db " + damaged);
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.output.find(damaged + ": is a corrupt database") != std::string::npos, r.output);
    CHECK(read_bytes(damaged) == before);
  }
}

TEST_CASE("db cli: shards tuned apart merge into one database that resumes both") {
  Scratch s("merge");
  const std::string a = s / "a.db", b = s / "b.db", all = s / "all.db";
  for (const auto& [db, seed] : {std::pair{a, "1"}, std::pair{b, "2"}}) {
    Run r = hone_cmd("tune --model " + kTiny + " --device emu --budget 2 --seed " + seed + " --db " + db);
    REQUIRE_MESSAGE(r.code == 0, r.output);
    // Each candidate evaluated says how long its evaluation took.
    CHECK_MESSAGE(std::regex_search(r.output, std::regex(R"(  1/2 .* (pass|fail) .*\[[0-9]+\.[0-9]{2} s\]\n)")), r.output);
  }
  add_lesson(a, "rmsnorm on machine a");
  add_lesson(b, "rmsnorm on machine b");
  const std::string a_before = read_bytes(a), b_before = read_bytes(b);

  Run r = hone_cmd("db merge " + a + " " + b + " --into " + all);
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("merged 2 databases") != std::string::npos);
  CHECK(read_bytes(a) == a_before);
  CHECK(read_bytes(b) == b_before);
  CHECK(hone_cmd("db check --db " + all).code == 0);
  r = hone_cmd("lessons list --json --db " + all);
  REQUIRE(r.code == 0);
  std::set<std::string> situations;
  for (const auto& l : nlohmann::json::parse(r.output)) situations.insert(l["situation"]);
  CHECK(situations.count("rmsnorm on machine a"));
  CHECK(situations.count("rmsnorm on machine b"));

  // Both shards' work is in the merged file: tuning either seed again finds both tasks done.
  for (const char* seed : {"1", "2"}) {
    r = hone_cmd("tune --model " + kTiny + " --device emu --budget 2 --seed " + seed + " --db " + all);
    REQUIRE_MESSAGE(r.code == 0, r.output);
    std::size_t done = 0;
    for (auto at = r.output.find("done in an earlier run"); at != std::string::npos;
         at = r.output.find("done in an earlier run", at + 1))
      ++done;
    CHECK_MESSAGE(done == 2, r.output);
    CHECK_MESSAGE(r.output.find("  1/2 ") == std::string::npos, r.output);  // no candidate evaluated
  }
}

TEST_CASE("db cli: merge refuses a missing or foreign source, and a target that is also a source") {
  Scratch s("merge-bad");
  const std::string a = s / "a.db";
  add_lesson(a, "rmsnorm");
  Run r = hone_cmd("db merge " + a + " " + s / "none.db" + " --into " + s / "all.db");
  CHECK(r.code == 2);
  CHECK(r.output.find(s / "none.db" + ": no such database") != std::string::npos);
  CHECK_FALSE(fs::exists(s / "all.db"));
  write_bytes(s / "notes.txt", "notes\n");
  r = hone_cmd("db merge " + a + " " + s / "notes.txt" + " --into " + s / "all.db");
  CHECK(r.code == 2);
  CHECK(r.output.find("not a hone database") != std::string::npos);
  CHECK(hone_cmd("db merge " + a + " --into " + a).code == 2);
  CHECK(hone_cmd("db merge --into " + s / "all.db").code == 2);
}
