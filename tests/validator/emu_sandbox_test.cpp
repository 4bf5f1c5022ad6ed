// Kernels that misbehave, run through the real worker process on the emu device: each is caught
// with its own reason, nothing they aim at on the host is touched, and the worker goes on to
// pass the next right kernel. Kernels are in tests/data/emu_faults; those that call host
// functions are built for the emu device only (NVRTC would refuse them at the static stage).
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "runtime/kernel_build.hpp"
#include "support/run_command.hpp"
#include "validator/static_stage.hpp"
#include "validator/worker.hpp"

using namespace hone;
namespace fs = std::filesystem;

namespace {

const Bindings kShape{{"tokens", 5}, {"hidden", 256}};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Sandbox {
  OpSpec op = load_op(templates_root(), "rmsnorm");
  fs::path dir = fs::temp_directory_path() / ("hone-sandbox-" + std::to_string(::getpid()));
  fs::path target = dir / "target";  // what the file-touching kernels aim at
  KernelUnderTest reference;

  Sandbox() {
    fs::create_directories(dir);
    const Candidate ref = reference_candidate(op);
    const KernelBuild b = build_kernel(static_build_request(op, ref, "sm_90", "emu"));
    REQUIRE_MESSAGE(b.ok(), b.error());
    reference = {b.image, ref.launch};
  }
  ~Sandbox() { fs::remove_all(dir); }

  EmuBuild build(const std::string& file, const std::string& entry) const {
    const std::string source = "#define HONE_TEST_PATH \"" + target.string() + "\"\n" +
                               read_text_file(std::string(HONE_TEST_DATA_DIR) + "/emu_faults/" + file);
    return compile_for_emu({source, entry, kernel_param_types(op), 900});
  }

  // One thread per row (32 rows a block), or with `row_blocks` a block of 32 threads per row.
  EvaluationRequest request(const std::string& file, const std::string& entry, bool row_blocks = false) const {
    const EmuBuild b = build(file, entry);
    REQUIRE_MESSAGE(b.ok, b.log);
    KernelUnderTest k;
    k.image.entry = entry;
    k.image.emu_object = b.shared_object;
    k.image.emu_invoke = b.invoke_symbol;
    k.launch.grid = {Expr::parse(row_blocks ? "tokens" : "ceil_div(tokens, 32)"), Expr::constant(1), Expr::constant(1)};
    k.launch.block = {Expr::constant(32), Expr::constant(1), Expr::constant(1)};
    EvaluationRequest r;
    r.spec_dir = op.dir;
    r.shape = kShape;
    r.reference = reference;
    r.candidate = k;
    r.seeds = {21, 22};
    r.time = false;
    return r;
  }

  Verdict run(Worker& w, const std::string& file, const std::string& entry, bool row_blocks = false) const {
    const Verdict v = w.evaluate(request(file, entry, row_blocks));
    MESSAGE(entry << ": " << (v.pass ? "passed" : v.stage + ": " + v.reason));
    return v;
  }
};

// The processes whose parent is this one (zombies reaped first).
std::vector<pid_t> children() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  while (dirent* e = proc ? ::readdir(proc) : nullptr) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    const std::string stat = file_text(fs::path("/proc") / e->d_name / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    char state;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == ::getpid()) out.push_back(static_cast<pid_t>(std::stoi(e->d_name)));
  }
  if (proc) ::closedir(proc);
  return out;
}

}  // namespace

TEST_CASE_FIXTURE(Sandbox, "sandbox: out-of-bounds writes and reads are caught in the guard pages, with buffer, offset and thread") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = run(w, "out_of_bounds.cu", "rmsnorm_writes_past_end");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "out-of-bounds write to buffer 'out'"));
  CHECK(has(v.reason, "bytes past its end in block (0,0,0) thread (1,0,0)"));

  v = run(w, "out_of_bounds.cu", "rmsnorm_reads_past_end");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "out-of-bounds read of buffer 'x'"));
  CHECK(has(v.reason, "past its end in block (0,0,0) thread (2,0,0)"));

  v = run(w, "out_of_bounds.cu", "rmsnorm_reads_before_start");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "out-of-bounds read of buffer 'w'"));
  CHECK(has(v.reason, "bytes before its start in block (0,0,0) thread (3,0,0)"));
  CHECK(run(w, "right.cu", "rmsnorm_right").pass);
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: barrier divergence is a kernel fault and costs no worker") {
  Worker w({"emu", "sm_90", 60, {}});
  const Verdict v = run(w, "barrier_divergence.cu", "rmsnorm_diverges_at_barrier");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "barrier divergence in block (0,0,0)"));
  CHECK(has(v.reason, "__syncthreads"));
  CHECK(has(v.reason, "thread (0,0,0)"));
  CHECK(run(w, "right.cu", "rmsnorm_right").pass);
  CHECK(w.started() == 1);
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: reading shared memory nothing wrote gives the poison, and the output shows it") {
  Worker w({"emu", "sm_90", 60, {}});
  const Verdict v = run(w, "unwritten_shared.cu", "rmsnorm_reads_unwritten_shared", /*row_blocks=*/true);
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "reference");
  CHECK(has(v.reason, "differ from the reference"));
  CHECK(std::isnan(v.worst.got));
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: a kernel spinning in its fibers is killed at the time limit, and no process is left behind") {
  // Orphans of this process's children become its children: a kernel process that outlived its
  // worker would show up here.
  REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  {
    Worker w({"emu", "sm_90", 3, {}});
    const Verdict v = run(w, "hang.cu", "rmsnorm_spins");
    CHECK_FALSE(v.pass);
    CHECK(v.stage == "worker");
    CHECK(has(v.reason, "did not answer within 3 s"));
    CHECK(run(w, "right.cu", "rmsnorm_right").pass);
  }
  std::vector<pid_t> left = children();
  for (int i = 0; i < 50 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = children();
  }
  CHECK_MESSAGE(left.empty(), left.size() << " processes outlived their worker");
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: crashes and a memory blow-up are reported with their reason, and the worker is replaced") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = run(w, "crash.cu", "rmsnorm_overflows_stack");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "fiber stack overflow in block (0,0,0) thread ("));
  CHECK(w.started() == 1);

  // An access outside every buffer is the kernel's fault, named like one inside a guard zone.
  v = run(w, "crash.cu", "rmsnorm_writes_null");
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "reference");
  CHECK_MESSAGE(has(v.reason, "out-of-bounds write to address 0x0, outside every buffer and guard zone in block ("), v.reason);
  CHECK(w.started() == 2);

  // A signal emu cannot explain ends the worker, and the verdict says how.
  v = run(w, "crash.cu", "rmsnorm_divides_by_zero");
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "worker");
  CHECK_MESSAGE(has(v.reason, "killed by signal 8"), v.reason);

  v = run(w, "memory_hog.cu", "rmsnorm_hoards_memory");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "the kernel ran out of memory in block ("));
  CHECK(run(w, "right.cu", "rmsnorm_right").pass);
  CHECK(w.started() == 4);  // the first three ended their process; running out of memory did not
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: a kernel cannot create, read or remove a file") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = run(w, "file_access.cu", "rmsnorm_creates_file");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call openat (opening a file) in block (0,0,0) thread (0,0,0)"));
  CHECK_FALSE(fs::exists(target));  // no file left behind
  v = run(w, "file_access.cu", "rmsnorm_creates_file", /*row_blocks=*/true);  // blocks on every thread of the pool
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call openat (opening a file) in block ("));
  CHECK_FALSE(fs::exists(target));

  { std::ofstream(target) << "host data\n"; }
  v = run(w, "file_access.cu", "rmsnorm_reads_file");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call openat"));
  v = run(w, "file_access.cu", "rmsnorm_removes_file");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call unlink (changing files)"));
  CHECK(file_text(target) == "host data\n");
  CHECK(run(w, "right.cu", "rmsnorm_right").pass);
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: a kernel cannot run a command or a program, or open a socket") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = run(w, "runs_command.cu", "rmsnorm_runs_command");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call"));
  CHECK(has(v.reason, "start a process"));
  v = run(w, "runs_command.cu", "rmsnorm_execs");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call execve (running a program)"));
  v = run(w, "runs_command.cu", "rmsnorm_opens_socket");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call socket (networking)"));
  CHECK_FALSE(fs::exists(target));
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: host code that runs at load time is refused at build time, or trapped while loading") {
  const EmuBuild b = build("load_time_code.cu", "rmsnorm_static_initialiser");
  CHECK_FALSE(b.ok);
  CHECK(has(b.log, "host code that would run when it is loaded"));

  Worker w({"emu", "sm_90", 60, {}});
  const Verdict v = run(w, "ifunc_resolver.cu", "rmsnorm_ifunc_at_load");
  CHECK_FALSE(v.pass);
  CHECK(has(v.reason, "forbidden system call openat (opening a file for writing) while the kernel was being loaded"));
  CHECK_FALSE(fs::exists(target));
}

TEST_CASE_FIXTURE(Sandbox, "sandbox: a job's database survives a run of hostile kernels, and later candidates still pass") {
  // A real job writes the database first; the hostile kernels then aim at it.
  const fs::path db = target;
  const std::string tune = std::string(HONE_BINARY_DIR) + "/hone tune --model " + HONE_TEST_DATA_DIR +
                           "/shapes/tiny.json --device emu --budget 2 --db " + db.string();
  const test::CommandResult first = test::run_command(tune);
  REQUIRE_MESSAGE(first.code == 0, first.output);
  const std::string before = file_text(db);
  REQUIRE(before.rfind("SQLite format 3", 0) == 0);

  Worker w({"emu", "sm_90", 60, {}});
  const std::vector<std::pair<std::string, std::string>> hostile = {
      {"file_access.cu", "rmsnorm_creates_file"}, {"file_access.cu", "rmsnorm_removes_file"},
      {"runs_command.cu", "rmsnorm_runs_command"}, {"out_of_bounds.cu", "rmsnorm_writes_past_end"},
      {"crash.cu", "rmsnorm_writes_null"},        {"crash.cu", "rmsnorm_divides_by_zero"},
      {"barrier_divergence.cu", "rmsnorm_diverges_at_barrier"}};
  for (const auto& [file, entry] : hostile) {
    CAPTURE(entry);
    CHECK_FALSE(run(w, file, entry).pass);
    CHECK(run(w, "right.cu", "rmsnorm_right").pass);
  }
  CHECK(file_text(db) == before);

  const test::CommandResult again = test::run_command(tune);  // the job resumes from the database
  CHECK_MESSAGE(again.code == 0, again.output);
}
