#include "tuner/kernel_builds.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <thread>

#include "tuner/db_records.hpp"
#include "validator/isolated_build.hpp"
#include "validator/source_policy.hpp"
#include "validator/static_stage.hpp"

namespace hone {

unsigned build_threads(unsigned requested) {
  return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

void build_kernels(const OpSpec& op, std::vector<BuildJob>& jobs, const std::string& arch, const std::string& device_kind,
                   unsigned threads, KnowledgeDb& db) {
  if (jobs.empty()) return;
  std::vector<std::optional<NvrtcResult>> known(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto c = db.compile(jobs[i].candidate_id, arch);
    if (c && c->compiler == nvrtc_identity()) known[i] = nvrtc_result_from_record(*c, jobs[i].candidate->entry);
  }
  // Both compilers are pure functions of the source: threads may run them at once. Untrusted
  // source is compiled only in a sandboxed compile process, never in this one.
  boost::asio::thread_pool pool(std::min<std::size_t>(build_threads(threads), jobs.size()));
  for (std::size_t i = 0; i < jobs.size(); ++i)
    boost::asio::post(pool, [&, i] {
      const KernelBuildRequest request = static_build_request(op, *jobs[i].candidate, arch, device_kind);
      jobs[i].build = is_untrusted(*jobs[i].candidate) ? build_isolated(request, known[i]) : build_kernel(request, known[i]);
    });
  pool.join();
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!known[i]) db.put_compile(compile_record(jobs[i].candidate_id, arch, jobs[i].candidate->entry, jobs[i].build));
}

}  // namespace hone
