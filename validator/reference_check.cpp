#include "validator/reference_check.hpp"

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "validator/chained_calls.hpp"

namespace hone {

namespace {

// The first mismatch over the calls of a chain, naming the call when there are several.
std::string compare_calls(StageRun& run, const std::vector<RunResult>& got, const std::vector<RunResult>& expected,
                          const Bindings& shape, const InputCase* input_case, const std::string& what) {
  for (std::size_t c = 0; c < expected.size(); ++c) {
    const std::string which = expected.size() > 1 ? fmt::format("{}, call {} of {}", what, c + 1, expected.size()) : what;
    const std::string mismatch = run.compare(got[c], expected[c], shape, input_case, which);
    if (!mismatch.empty()) return mismatch;
  }
  return "";
}

LaunchSetup setup_for(const InputDraw& draw) {
  // An input case's scalars are what the case is about (w_offset 1 for zero-centred weights):
  // they win over the values a hidden test drew.
  LaunchSetup s;
  s.scalars = draw.scalars;
  if (draw.input_case)
    for (const auto& [name, value] : draw.input_case->scalars) s.scalars[name] = value;
  return s;
}

}  // namespace

CheckedInputs check_against_reference(StageRun& run, const Bindings& shape, const InputDraw& draw, const std::string& what) {
  CheckedInputs checked{draw, {}};
  std::vector<std::vector<HostTensor>> calls;
  try {
    calls = draw_calls(run.op, shape, draw, &run.shared_operands);
  } catch (const InputError& e) {
    // The spec's fault (a pool too small for the batch), not the kernel's: say so.
    run.fail(fmt::format("the op's spec cannot draw inputs for {} at {}: {}", what, shape_text(shape), e.what()));
  }
  const LaunchSetup separate = setup_for(draw);
  const UploadedCalls uploaded = upload_calls(run, shape, calls, separate);
  std::vector<RunResult> got = run_calls(run, true, shape, calls, separate, &uploaded);
  checked.expected = run_calls(run, false, shape, calls, separate, &uploaded);
  const std::string mismatch = compare_calls(run, got, checked.expected, shape, draw.input_case, what);
  if (!mismatch.empty()) run.fail(mismatch, {{"seed", draw.seed}, {"case", draw.input_case ? draw.input_case->name : "default"}});

  for (const auto& [out, input] : run.op.aliases) {
    LaunchSetup in_place = separate;
    in_place.in_place = std::make_pair(out, input);
    got = run_calls(run, true, shape, calls, in_place);
    const std::string wrong = compare_calls(run, got, checked.expected, shape, draw.input_case, what);
    if (!wrong.empty())
      run.fail(fmt::format("wrong when '{}' is '{}' (in place): {}", out, input, wrong),
               {{"seed", draw.seed}, {"in_place", {out, input}}});
  }
  return checked;
}

std::string recheck(StageRun& run, const Bindings& shape, const CheckedInputs& checked, const std::string& what) {
  const LaunchSetup setup = setup_for(checked.draw);
  // Drawn as the first time, they are the same inputs (a draw's values depend on its seed alone).
  const auto calls = draw_calls(run.op, shape, checked.draw, &run.shared_operands);
  const UploadedCalls uploaded = upload_calls(run, shape, calls, setup);
  const std::vector<RunResult> got = run_calls(run, true, shape, calls, setup, &uploaded);
  return compare_calls(run, got, checked.expected, shape, checked.draw.input_case, what);
}

}  // namespace hone
