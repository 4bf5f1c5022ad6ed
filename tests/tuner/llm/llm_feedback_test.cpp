// What the LLM is told about its attempts: enough to fix a kernel, never the hidden tests.
#include <doctest/doctest.h>

#include "tuner/llm/llm_feedback.hpp"

using namespace hone;

namespace {

Candidate candidate() {
  Candidate c;
  c.op = "rmsnorm";
  c.origin = "llm";
  c.entry = "rms_rows";
  return c;
}

ResultRecord failed(const std::string& stage, const std::string& reason) {
  ResultRecord r;
  r.verdict = "fail";
  r.stage = stage;
  r.reason = reason;
  return r;
}

}  // namespace

TEST_CASE("llm feedback: a hidden-test failure names only the stage, never sizes, values or seeds") {
  const ResultRecord r = failed("hidden", "hidden test tokens=3 (seed 0x9e3779b9, case large): out[2, 17] got 0, expected 412.5");
  const std::string note = result_note(4, candidate(), r, 0.5);
  CHECK(note.find("attempt 4 (rms_rows)") != std::string::npos);
  CHECK(note.find("failed the hidden tests") != std::string::npos);
  for (const char* secret : {"tokens=3", "0x9e3779b9", "large", "412.5", "out[2, 17]"}) CHECK(note.find(secret) == std::string::npos);
}

TEST_CASE("llm feedback: a visible failure gives the stage, the reason and the worst element") {
  ResultRecord r = failed("reference", "output out differs from the reference (seed 7)");
  r.detail["worst"] = {{"buffer", "out"}, {"index", "[3, 200]"}, {"got", 1.5}, {"expected", -0.25}};
  const std::string note = result_note(2, candidate(), r, 0.5);
  CHECK(note.find("failed at the reference stage") != std::string::npos);
  CHECK(note.find("worst element out[3, 200]: got 1.5, expected -0.25") != std::string::npos);
}

TEST_CASE("llm feedback: a compile error keeps the lines about the kernel's source and drops other files'") {
  const std::string log =
      "nvrtc: rms_rows.cu(4): error: identifier \"rsqrt_fast\" is undefined\n"
      "      const float inv = rsqrt_fast(s);\n"
      "                        ^\n"
      "/usr/include/secret.h(1): error: root:x:0:0:root:/root:/bin/bash\n"
      "  leaked line\n"
      "1 error detected in the compilation of \"rms_rows.cu\".\n";
  const std::string note = result_note(1, candidate(), failed("static", "does not compile: " + log), 0);
  CHECK(note.find("does not compile") != std::string::npos);
  CHECK(note.find("identifier \"rsqrt_fast\" is undefined") != std::string::npos);
  CHECK(note.find("rsqrt_fast(s)") != std::string::npos);
  CHECK(note.find("root:x:0:0") == std::string::npos);
  CHECK(note.find("leaked line") == std::string::npos);
}

TEST_CASE("llm feedback: a passing attempt gives its time against the reference, a reply without a kernel its reason") {
  ResultRecord r;
  r.verdict = "pass";
  r.time_ms = 0.25;
  CHECK(result_note(3, candidate(), r, 1.0) == "attempt 3 (rms_rows): correct, 0.2500 ms (4.00x the reference)");
  CHECK(reply_note(5, "the reply is not one JSON object:\nsyntax error") ==
        "attempt 5: no kernel was tried: the reply is not one JSON object: syntax error");
}
