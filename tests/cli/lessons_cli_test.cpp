// `hone lessons add|search|list|distill` through the real binary.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/file_bytes.hpp"
#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using Run = hone::test::CommandResult;
using hone::test::read_bytes;
using hone::test::write_bytes;

// No embeddings endpoint from the caller's environment: these tests use the local embedding.
Run hone_cmd(const std::string& args) {
  return hone::test::run_command("env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u HONE_EMBEDDING_MODEL " +
                                 std::string(HONE_BINARY_DIR) + "/hone " + args);
}

struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("hone-lessons-cli-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

// An SQLite database of another program: one empty page, with an application id that is not
// hone's. Written byte by byte, as the file format specifies (sqlite.org/fileformat.html).
std::string foreign_sqlite_file() {
  std::string page(4096, '\0');
  const std::string magic = "SQLite format 3";
  page.replace(0, magic.size(), magic);  // followed by its terminating zero
  auto be32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) page[at + i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
  };
  page[16] = 0x10;  // page size 4096
  page[18] = page[19] = 1;
  page[21] = 64, page[22] = 32, page[23] = 32;
  be32(24, 1);          // file change counter
  be32(28, 1);          // pages
  be32(44, 4);          // schema format
  be32(56, 1);          // UTF-8
  be32(68, 0x46495245);  // application id 'FIRE'
  be32(92, 1);          // version-valid-for
  be32(96, 3040001);
  page[100] = 0x0d;     // the empty sqlite_schema table: a leaf page with no cells
  page[105] = 0x10;     // cell content starts at 4096
  return page;
}

}  // namespace

TEST_CASE("lessons cli: --help succeeds for every lessons command") {
  for (const char* c : {"lessons", "lessons add", "lessons search", "lessons list", "lessons distill"}) {
    CAPTURE(c);
    CHECK(hone_cmd(std::string(c) + " --help").code == 0);
  }
  CHECK(hone_cmd("lessons").code == 2);
  CHECK(hone_cmd("lessons frobnicate").code == 2);
}

TEST_CASE("lessons cli: add, list and search a lesson") {
  Scratch s("add");
  const std::string db = s / "hone.db";
  Run r = hone_cmd("lessons add --situation 'gemv, M<=4, K>=4096 on sm_90' --action 'one warp per output row with "
                   "16-byte loads beats block-per-row by ~1.4x' --tags op/gemv,arch/sm_90,technique/vectorized-loads,"
                   "'shape/M<=4' --db " + db);
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("added lesson #1") != std::string::npos);
  r = hone_cmd("lessons add --situation 'rmsnorm with hidden=4096 on sm_90' --action 'VEC=8 (16-byte loads) with 256 threads per row' "
               "--tags op/rmsnorm,arch/sm_90 --confidence 0.7 --db " + db);
  REQUIRE_MESSAGE(r.code == 0, r.output);

  r = hone_cmd("lessons list --db " + db);
  CHECK(r.code == 0);
  CHECK(r.output.find("one warp per output row") != std::string::npos);
  r = hone_cmd("lessons list --json --tags op/rmsnorm --db " + db);
  REQUIRE(r.code == 0);
  auto listed = nlohmann::json::parse(r.output);
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["confidence"] == 0.7);

  r = hone_cmd("lessons search 'vectorised loads for gemv' --json --db " + db);
  REQUIRE_MESSAGE(r.code == 0, r.output);
  auto found = nlohmann::json::parse(r.output);
  CHECK(found["model"].get<std::string>().rfind("hone-local-ngram", 0) == 0);
  REQUIRE_FALSE(found["hits"].empty());
  CHECK(found["hits"][0]["id"] == 1);
  CHECK(found["hits"][0]["vector_rank"] == 1);
  r = hone_cmd("lessons search 'vectorised loads for gemv' --tags op/rmsnorm --top 1 --json --db " + db);
  REQUIRE(r.code == 0);
  found = nlohmann::json::parse(r.output);
  REQUIRE(found["hits"].size() == 1);
  CHECK(found["hits"][0]["id"] == 2);
  r = hone_cmd("lessons search 'split-K' --ranking keyword --db " + db);
  CHECK(r.code == 0);
  CHECK(r.output.find("no lessons match") != std::string::npos);
}

TEST_CASE("lessons cli: a lesson without a situation or action, or with a bad tag, is exit 2") {
  Scratch s("refuse");
  const std::string db = s / "hone.db";
  Run r = hone_cmd("lessons add --situation 'gemv on sm_90' --action ' ' --db " + db);
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find("a lesson needs an action") != std::string::npos, r.output);
  CHECK_FALSE(fs::exists(db));  // refused before the database is made
  CHECK(hone_cmd("lessons add --situation 'gemv on sm_90' --db " + db).code == 2);
  r = hone_cmd("lessons add --situation s --action a --tags 'op//gemv' --db " + db);
  CHECK(r.code == 2);
  CHECK(r.output.find("tag 'op//gemv' has an empty path segment") != std::string::npos);
  CHECK(hone_cmd("lessons add --situation s --action a --evidence 12x --db " + db).code == 2);
  r = hone_cmd("lessons add --situation s --action a --evidence 12 --db " + db);
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.output.find("--evidence names a result that is not in the database") != std::string::npos, r.output);
  CHECK(hone_cmd("lessons search x --top 0 --db " + db).code == 2);
  CHECK(hone_cmd("lessons search x --ranking best --db " + db).code == 2);
}

TEST_CASE("lessons cli: reading commands on a missing database are exit 2 and create nothing") {
  Scratch s("missing");
  for (const char* c : {"lessons list", "lessons search gemv", "lessons distill"}) {
    CAPTURE(c);
    Run r = hone_cmd(std::string(c) + " --db " + s / "none.db");
    CHECK(r.code == 2);
    CHECK(r.output.find(s / "none.db" + ": no such database") != std::string::npos);
    CHECK_FALSE(fs::exists(s / "none.db"));
  }
}

TEST_CASE("lessons cli: a text file or another program's SQLite file as the database is exit 2, untouched") {
  Scratch s("foreign");
  const std::string text = s / "notes.txt";
  write_bytes(text, "my notes about gemv, not a database\n");
  const std::string foreign = s / "other.sqlite";
  write_bytes(foreign, foreign_sqlite_file());
  for (const auto& [file, why] : {std::pair{text, "not a hone database (not an SQLite file)"},
                                  std::pair{foreign, "not a hone database (an SQLite database of another program, "
                                                     "application_id 0x46495245)"}}) {
    CAPTURE(file);
    const std::string before = read_bytes(file);
    for (const std::string c : {"lessons list", "lessons search gemv", "lessons distill",
                                "lessons add --situation s --action a"}) {
      CAPTURE(c);
      Run r = hone_cmd(c + " --db " + file);
      CHECK(r.code == 2);
      CHECK_MESSAGE(r.output.find(file + ": " + why) != std::string::npos, r.output);
    }
    CHECK(read_bytes(file) == before);
    CHECK_FALSE(fs::exists(file + "-wal"));
  }
}

TEST_CASE("lessons cli: distill on a tuned database reports what it did") {
  Scratch s("distill");
  const std::string db = s / "hone.db";
  Run r = hone_cmd("tune --model " + std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json --device emu --budget 2 --db " + db);
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("lessons: ") != std::string::npos);  // the job distils at its end
  r = hone_cmd("lessons distill --support 1 --min-speedup 1.0 --db " + db);
  CHECK_MESSAGE(r.code == 0, r.output);
  CHECK(r.output.find("parameter effects;") != std::string::npos);
  r = hone_cmd("lessons list --json --db " + db);
  REQUIRE(r.code == 0);
  for (const auto& l : nlohmann::json::parse(r.output)) {
    CHECK(l["origin"] == "distilled");
    CHECK_FALSE(l["evidence"].empty());
  }
}
