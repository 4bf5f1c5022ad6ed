// A damaged database is refused before anything is written to it, and left as it was.
#include <doctest/doctest.h>

#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

// A hone database over several pages, checkpointed so that everything is in the main file.
void write_database(const std::filesystem::path& file) {
  KnowledgeDb db(file);
  for (int i = 0; i < 200; ++i) {
    auto task = test::make_task("task-" + std::to_string(i));
    db.upsert_task(task);
  }
}

}  // namespace

TEST_CASE("corrupt: a database with an overwritten page is refused, byte for byte unchanged") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  write_database(file);
  std::string bytes = test::read_bytes(file);
  REQUIRE(bytes.size() >= 4 * 4096);
  SUBCASE("garbage in a table page") {
    for (std::size_t i = 3 * 4096; i < 4 * 4096; ++i) bytes[i] = static_cast<char>(0xA5 ^ (i * 7));
  }
  SUBCASE("truncated to half") { bytes.resize(bytes.size() / 2); }
  test::write_bytes(file, bytes);

  std::string error;
  try {
    KnowledgeDb db(file);
  } catch (const DbError& e) {
    error = e.what();
  }
  CHECK_MESSAGE(error.rfind(file.string() + ": ", 0) == 0, error);
  CHECK_MESSAGE(error.find("corrupt") != std::string::npos, error);
  CHECK(test::read_bytes(file) == bytes);
}
