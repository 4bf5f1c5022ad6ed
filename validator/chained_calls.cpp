#include "validator/chained_calls.hpp"

#include <fmt/format.h>

#include "validator/kernel_args.hpp"

namespace hone {

std::vector<std::vector<HostTensor>> draw_calls(const OpSpec& op, const Bindings& shape, const InputDraw& draw,
                                                SharedOperands* shared) {
  std::vector<std::vector<HostTensor>> calls;
  calls.push_back(generate_inputs(op, shape, draw.seed, draw.input_case, draw.modes, nullptr, 0, shared));
  for (int c = 1; c < op.chain_calls; ++c)
    calls.push_back(generate_inputs(op, shape, draw.seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(c)), draw.input_case,
                                    draw.modes, &calls.back(), 0, shared));
  return calls;
}

UploadedCalls upload_calls(StageRun& run, const Bindings& shape, const std::vector<std::vector<HostTensor>>& calls,
                           const LaunchSetup& setup) {
  UploadedCalls uploaded;
  for (const auto& host : calls) uploaded.push_back(run.upload_inputs(shape, host, setup));
  return uploaded;
}

std::vector<RunResult> run_calls(StageRun& run, bool candidate, const Bindings& shape,
                                 const std::vector<std::vector<HostTensor>>& calls, const LaunchSetup& setup,
                                 const UploadedCalls* uploaded) {
  auto launch = [&](const std::vector<HostTensor>& host, std::size_t c) {
    LaunchSetup s = setup;
    if (calls.size() > 1) s.call = fmt::format("call {} of {}", c + 1, calls.size());
    if (uploaded) s.inputs = (*uploaded)[c].get();
    return candidate ? run.run_candidate(shape, host, s) : run.run_reference(shape, host, s);
  };
  std::vector<RunResult> results;
  results.push_back(launch(calls.front(), 0));
  for (std::size_t c = 1; c < calls.size(); ++c) {
    std::vector<HostTensor> host = calls[c];
    for (const auto& [i, state] : results.back().outputs)
      if (run.op.args[i].role == ArgRole::InOut) host[i] = state;
    results.push_back(launch(host, c));
  }
  return results;
}

}  // namespace hone
