#include "validator/source_policy.hpp"

#include <cctype>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace hone {

namespace {

// The CUDA headers a kernel may include (NVRTC's own and the toolkit's device headers).
const std::set<std::string> kAllowedIncludes = {
    "cuda_bf16.h", "cuda_fp16.h", "cuda_runtime.h", "cuda.h", "vector_types.h", "math_constants.h",
    "cooperative_groups.h", "cooperative_groups/reduce.h", "cuda/std/cstdint", "cuda/std/limits", "cuda/std/type_traits",
    "cuda_fp8.h", "mma.h", "cuda_pipeline.h", "cuda/barrier", "cuda/pipeline", "stdint.h", "cstdint"};

// Host interfaces a kernel has no business naming: files, processes, sockets, the environment,
// dynamic loading, raw memory mapping and system calls.
const std::set<std::string> kHostFunctions = {
    "system", "popen", "pclose", "fopen", "freopen", "fdopen", "fwrite", "fread", "fputs", "fgets", "fclose", "open", "openat",
    "creat", "close", "read", "write", "pread", "pwrite", "unlink", "unlinkat", "remove", "rename", "mkdir", "rmdir",
    "chmod", "chown", "truncate", "ftruncate", "execve", "execv", "execvp", "execl", "execlp", "execle", "fork", "vfork",
    "clone", "posix_spawn", "socket", "connect", "bind", "listen", "accept", "send", "recv", "sendto", "recvfrom",
    "getenv", "setenv", "putenv", "dlopen", "dlsym", "mmap", "munmap", "mprotect", "syscall", "kill", "raise", "signal",
    "sigaction", "ptrace", "exit", "_exit", "abort", "atexit", "ifstream", "ofstream", "fstream", "FILE",
    "cudaMalloc", "cudaFree", "cudaMemcpy", "cudaLaunchKernel", "cudaDeviceSynchronize", "cudaStreamCreate",
    "cudaGraphLaunch", "cudaMallocManaged"};

struct Token {
  std::string text;
  bool namespace_scope = false;  // at file scope or directly inside a namespace block
};

// Strips comments and string/char literals, then splits into identifiers and punctuation, keeping
// preprocessor lines apart.
struct Lexed {
  std::vector<std::string> includes;
  std::vector<Token> tokens;
  std::string directive_problem;  // a directive that reads a file other than through #include
};

// The directive's name ("include", "pragma") and what follows it, from a preprocessor line.
std::pair<std::string, std::string> directive(const std::string& line, std::size_t hash) {
  std::size_t b = line.find_first_not_of(" \t", hash + 1);
  if (b == std::string::npos) return {"", ""};
  std::size_t e = b;
  while (e < line.size() && (std::isalnum(static_cast<unsigned char>(line[e])) || line[e] == '_')) ++e;
  return {line.substr(b, e - b), line.substr(e)};
}

Lexed lex(const std::string& src) {
  Lexed out;
  std::string code;
  code.reserve(src.size());
  for (std::size_t i = 0; i < src.size();) {
    if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n') ++i;
    } else if (src.compare(i, 2, "/*") == 0) {
      auto end = src.find("*/", i + 2);
      i = end == std::string::npos ? src.size() : end + 2;
      code += ' ';
    } else if (src[i] == '"' || src[i] == '\'') {
      const char q = src[i];
      // Keep include targets: they are checked, not executed.
      std::size_t j = i + 1;
      while (j < src.size() && src[j] != q && src[j] != '\n') j += src[j] == '\\' ? 2 : 1;
      code += q;
      code += src.substr(i + 1, j - i - 1);
      code += q;
      i = j + 1;
    } else {
      code += src[i++];
    }
  }

  std::size_t pos = 0;
  int depth = 0;
  bool pending_namespace = false;
  std::vector<int> namespace_depths;  // brace depths opened by `namespace X {`
  auto at_namespace_scope = [&] { return depth == 0 || (!namespace_depths.empty() && namespace_depths.back() == depth); };
  while (pos < code.size()) {
    std::size_t eol = code.find('\n', pos);
    if (eol == std::string::npos) eol = code.size();
    std::string line = code.substr(pos, eol - pos);
    pos = eol + 1;
    std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '#') {
      // GCC still honours #import in C++ (an #include once), and #include_next opens a file too.
      const auto [name, rest] = directive(line, first);
      if (name == "include" || name == "include_next" || name == "import") {
        std::size_t open = rest.find_first_of("<\"");
        std::size_t close = open == std::string::npos ? std::string::npos : rest.find_first_of(">\"", open + 1);
        out.includes.push_back(open == std::string::npos || close == std::string::npos ? line.substr(first)
                                                                                      : rest.substr(open + 1, close - open - 1));
      } else if (name == "pragma") {
        std::istringstream words(rest);
        std::string a, b;
        words >> a >> b;
        if (a == "GCC" && b == "dependency" && out.directive_problem.empty())
          out.directive_problem = "uses #pragma GCC dependency, which reads another file";
      }
      continue;
    }
    for (std::size_t i = 0; i < line.size();) {
      const char c = line[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
        out.tokens.push_back({line.substr(i, j - i), at_namespace_scope()});
        if (out.tokens.back().text == "namespace") pending_namespace = true;
        i = j;
      } else if (c == '"' || c == '\'') {
        std::size_t j = line.find(c, i + 1);
        i = j == std::string::npos ? line.size() : j + 1;
      } else {
        if (line.compare(i, 3, "<<<") == 0) {
          out.tokens.push_back({"<<<", at_namespace_scope()});
          i += 3;
          continue;
        }
        if (c == '{') {
          ++depth;
          if (pending_namespace) namespace_depths.push_back(depth);
          pending_namespace = false;
        } else if (c == '}') {
          if (!namespace_depths.empty() && namespace_depths.back() == depth) namespace_depths.pop_back();
          --depth;
        } else if (c == ';') {
          pending_namespace = false;
        }
        out.tokens.push_back({std::string(1, c), at_namespace_scope()});
        ++i;
      }
    }
  }
  return out;
}

}  // namespace

bool is_untrusted(const Candidate& c) { return c.origin == "llm" || c.origin == "user"; }

std::string untrusted_source_violation(const std::string& source, const std::string& device_kind) {
  const Lexed l = lex(source);
  for (const auto& inc : l.includes)
    if (!kAllowedIncludes.count(inc)) return "includes \"" + inc + "\", which is not a CUDA header";

  if (!l.directive_problem.empty()) return l.directive_problem;

  for (std::size_t i = 0; i < l.tokens.size(); ++i) {
    const std::string& t = l.tokens[i].text;
    if (t == "_Pragma" || t == "__pragma") return "uses " + t + ", which hides a directive from this check";
    if ((t == "asm" || t == "__asm__" || t == "__asm") && device_kind == "emu")
      return "uses inline assembly, which cannot run under emulation";
    if (t == "<<<" || t == "cudaLaunchKernel" || t == "cudaLaunchCooperativeKernel" || t == "cudaGraphLaunch")
      return "launches kernels from the device (dynamic parallelism)";
    if (t == "__managed__") return "declares a __managed__ variable, state that survives between launches";
    if (kHostFunctions.count(t) && i + 1 < l.tokens.size() &&
        (l.tokens[i + 1].text == "(" || l.tokens[i + 1].text == ":" || t == "FILE" || t == "ifstream" || t == "ofstream" ||
         t == "fstream"))
      return "names the host interface '" + t + "'";
    if (t == "__device__" && l.tokens[i].namespace_scope) {
      // A declaration at namespace scope: a function if a '(' comes before '=', ';', '[' or '{'.
      for (std::size_t j = i + 1; j < l.tokens.size(); ++j) {
        const std::string& u = l.tokens[j].text;
        if (u == "(") break;
        if (u == "=" || u == ";" || u == "[" || u == "{") {
          std::string name = l.tokens[j - 1].text;
          return "declares the __device__ variable '" + name + "' at namespace scope, state that survives between launches";
        }
      }
    }
  }
  return "";
}

Verdict source_policy_verdict(const Candidate& c, const std::string& device_kind) {
  Verdict v;
  v.stage = "static";
  if (is_untrusted(c)) {
    const std::string why = untrusted_source_violation(c.source, device_kind);
    if (!why.empty()) {
      v.reason = "untrusted source " + why;
      return v;
    }
  }
  v.pass = true;
  return v;
}

}  // namespace hone
