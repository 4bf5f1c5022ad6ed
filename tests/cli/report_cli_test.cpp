// `hone report` on a real emu job, rendered by headless Chromium (Debian's `chromium`, installed
// by scripts/bootstrap): the page parses whole, the console stays silent, and a screenshot is
// taken. No network: the page fetches nothing and Chromium is started without it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/json_file.hpp"
#include "support/run_command.hpp"

namespace {

using Run = hone::test::CommandResult;

Run hone_cli(const std::string& args) { return hone::test::run_command(std::string(HONE_BINARY_DIR) + "/hone " + args); }

std::string chromium() {
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"})
    if (hone::test::run_command(std::string("command -v ") + c).code == 0) return c;
  return "";
}

}  // namespace

TEST_CASE("cli: report writes a page that headless Chromium renders without errors") {
  const auto dir = std::filesystem::temp_directory_path() / ("hone-report-cli-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "tiny.db").string(), html = (dir / "report.html").string();
  Run r = hone_cli("tune --model " + std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json --device emu --budget 2 --db " + db);
  REQUIRE_MESSAGE(r.code == 0, r.output);
  r = hone_cli("report --db " + db + " --out " + html);
  REQUIRE_MESSAGE(r.code == 0, r.output);
  CHECK_MESSAGE(r.output.find("(2 task sections)") != std::string::npos, r.output);
  CHECK(hone_cli("report --db " + (dir / "missing.db").string() + " --out " + html).code == 2);

  const std::string browser = chromium();
  REQUIRE_MESSAGE(!browser.empty(), "chromium is not installed: run scripts/bootstrap (Debian package chromium)");
  // A throwaway profile; no first-run, extensions, background networking or sandbox (root in CI).
  const std::string flags = " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --disable-background-networking"
                            " --disable-sync --user-data-dir=" + (dir / "profile").string() +
                            " --enable-logging=stderr --v=0 --window-size=1400,2000 ";
  const std::string url = "file://" + html;
  const std::string png = (dir / "report.png").string();
  r = hone::test::run_command("timeout 120 " + browser + flags + "--screenshot=" + png + " " + url);
  REQUIRE_MESSAGE(r.code == 0, r.output);
  const std::string shot = hone::read_text_file(png);
  CHECK(shot.size() > 20000);
  CHECK(shot.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  // Script errors and console messages would show here; the page has none.
  CHECK_MESSAGE(r.output.find("Uncaught") == std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find(":CONSOLE") == std::string::npos, r.output);

  // The DOM as Chromium parsed it: whole (the footer is there) with every task and chart.
  r = hone::test::run_command("timeout 120 " + browser + flags + "--dump-dom " + url + " 2>/dev/null");
  REQUIRE(r.code == 0);
  CHECK(r.output.find("id=\"report-end\"") != std::string::npos);
  CHECK(r.output.find("rmsnorm hidden=256 tokens=1..2") != std::string::npos);
  CHECK(r.output.find("rmsnorm hidden=256 tokens=3..4") != std::string::npos);
  std::size_t svgs = 0;
  for (auto p = r.output.find("<svg"); p != std::string::npos; p = r.output.find("<svg", p + 1)) ++svgs;
  CHECK(svgs == 6);
  std::filesystem::remove_all(dir);
}
