// The worker reads the op spec from disk for every evaluation; one edited after the job loaded it
// (hone updated under a running job) must not judge a candidate by other rules than the job's.
#include <doctest/doctest.h>

#include "core/op_spec.hpp"
#include "support/family_copy.hpp"
#include "validator/candidate_validation.hpp"
#include "validator/worker.hpp"

using namespace hone;

TEST_CASE("validator: a spec edited on disk after the job loaded it fails the evaluation, naming the change") {
  const test::FamilyCopy family("rmsnorm", "spec-changed");
  const OpSpec op = load_op_spec(family.dir);
  Candidate c = reference_candidate(op);
  c.origin = "user";
  Worker worker({"emu", "sm_90", 30, {}});
  ValidationOptions options;
  options.timing.repeats = 3;
  const Bindings shape = {{"tokens", 2}, {"hidden", 256}};
  const Verdict before = validate_candidate(op, c, shape, options, &worker);
  CHECK_MESSAGE(before.pass, before.stage << ": " << before.reason);

  nlohmann::json spec = family.original_spec;
  spec["tolerance"]["bf16"]["atol"] = 0.5;  // a looser rule than the job's
  family.write_spec(spec);
  const Verdict after = validate_candidate(op, c, shape, options, &worker);
  CHECK_FALSE(after.pass);
  CHECK_MESSAGE(after.reason.find("the op spec changed on disk after the job loaded it") != std::string::npos, after.reason);
  CHECK(after.reason.find("spec.json") != std::string::npos);
}
