#pragma once
// The C++ source the host compiler sees for a CUDA kernel: the user's source, with the two
// constructs the prelude's macros cannot express rewritten (dynamic shared memory, and the
// unroll pragma further down), and a trampoline appended.
//
// The rewrite: `extern __shared__ [__align__(n)|alignas(n)] T name[];` declares the block's
// dynamic shared memory. It becomes
//   - in a function:        `T* const name = reinterpret_cast<T*>(<this block's buffer>);`
//   - at namespace scope:   a macro `name` that expands to that same expression (a variable
//                           would be initialised once, not per block).
// Everything else on the line, and the line numbering, is kept so diagnostics point at the
// user's lines. Declarations produced by macros are not rewritten.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "cuda_tokens.hpp"

namespace hone::emu {

inline constexpr const char* kEmuSourceName = "kernel.cu";
/// A function every emu object exports: it returns the address of a thread-local variable of the
/// module, which locates (and allocates) the module's thread-local storage, where its static
/// __shared__ variables live (see StaticSharedLayout in rt/grid.hpp).
inline constexpr const char* kStaticSharedAnchor = "hone_emu_static_shared_anchor";

namespace detail {

inline std::string_view text(std::string_view s, const Token& t) { return s.substr(t.begin, t.end - t.begin); }

// Whether the '{' at tokens[i] opens a namespace or a linkage block (rather than a function,
// class or statement body).
inline bool opens_namespace(std::string_view s, const std::vector<Token>& tokens, std::size_t i) {
  std::size_t j = i;
  while (j > 0 && (tokens[j - 1].kind == Token::identifier || text(s, tokens[j - 1]) == "::")) {
    --j;
    if (text(s, tokens[j]) == "namespace") return true;
  }
  return i >= 2 && tokens[i - 1].kind == Token::literal && text(s, tokens[i - 2]) == "extern";
}

struct Rewrite {
  std::size_t begin, end;
  std::string replacement;
};

// Parses `extern ... __shared__ ... T name [ ] ;` starting at tokens[i] ("extern"); on success
// fills type and name and returns the index of the ';'.
inline std::size_t match_dynamic_shared(std::string_view s, const std::vector<Token>& tokens, std::size_t i,
                                        std::string& type, std::string& name) {
  std::size_t end = i + 1;
  while (end < tokens.size()) {
    const std::string_view t = text(s, tokens[end]);
    if (t == ";") break;
    if (t == "{" || t == "}") return 0;
    ++end;
  }
  if (end >= tokens.size() || end < i + 5) return 0;
  if (text(s, tokens[end - 1]) != "]" || text(s, tokens[end - 2]) != "[" || tokens[end - 3].kind != Token::identifier)
    return 0;
  bool shared = false;
  type.clear();
  for (std::size_t k = i + 1; k < end - 3; ++k) {
    const std::string_view t = text(s, tokens[k]);
    if (t == "__shared__") { shared = true; continue; }
    if (t == "__device__" || t == "static") continue;
    if (t == "__align__" || t == "alignas" || t == "__attribute__" || t == "__declspec") {
      int depth = 0;  // skip the parenthesised argument
      for (++k; k < end - 3; ++k) {
        const std::string_view p = text(s, tokens[k]);
        if (p == "(") ++depth;
        if (p == ")" && --depth == 0) break;
      }
      continue;
    }
    if (!type.empty() && t != "::" && type.back() != ':' && t != "<" && t != ">" && t != ",") type += ' ';
    type += t;
  }
  if (!shared || type.empty()) return 0;
  name = std::string(text(s, tokens[end - 3]));
  return end;
}

}  // namespace detail

/// The user's source with dynamic shared memory declarations rewritten (see above).
inline std::string rewrite_dynamic_shared(const std::string& source) {
  const std::vector<Token> tokens = tokenize_cuda(source);
  std::vector<detail::Rewrite> rewrites;
  std::vector<bool> braces;  // true: namespace-like
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string_view t = detail::text(source, tokens[i]);
    if (t == "{") braces.push_back(detail::opens_namespace(source, tokens, i));
    if (t == "}" && !braces.empty()) braces.pop_back();
    if (t != "extern") continue;
    std::string type, name;
    const std::size_t semicolon = detail::match_dynamic_shared(source, tokens, i, type, name);
    if (!semicolon) continue;
    const std::size_t begin = tokens[i].begin, end = tokens[semicolon].end;
    const std::string buffer = "reinterpret_cast<" + type + "*>(::hone_emu::dynamic_smem())";
    const bool at_namespace_scope = std::all_of(braces.begin(), braces.end(), [](bool ns) { return ns; });
    std::string replacement;
    if (at_namespace_scope) {
      const long line = 1 + std::count(source.begin(), source.begin() + static_cast<long>(end), '\n');
      replacement = "\n#undef " + name + "\n#define " + name + " (" + buffer + ")\n#line " + std::to_string(line) +
                    " \"" + kEmuSourceName + "\"\n";
    } else {
      replacement = type + "* const " + name + " = " + buffer + ";";
      replacement.append(static_cast<std::size_t>(std::count(source.begin() + static_cast<long>(begin),
                                                             source.begin() + static_cast<long>(end), '\n')),
                         '\n');
    }
    rewrites.push_back({begin, end, std::move(replacement)});
    i = semicolon;
  }
  std::string out;
  std::size_t at = 0;
  for (const auto& r : rewrites) {
    out.append(source, at, r.begin - at);
    out += r.replacement;
    at = r.end;
  }
  out.append(source, at, std::string::npos);
  return out;
}

/// The user's source with CUDA's `#pragma unroll [N]` as GCC's `#pragma GCC unroll N`, line for
/// line. Templates keep small arrays in registers by unrolling the loops over them; a host
/// compiler that ignored the pragma would keep them on the stack and loop, and emulation would
/// charge a tuned kernel several times what it charges a plain one. A count that is not a plain
/// number (a template argument) becomes 16, as does no count: GCC unrolls a shorter constant trip
/// count fully, as nvcc does.
inline std::string rewrite_unroll_pragmas(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  std::size_t at = 0;
  while (at < source.size()) {
    std::size_t eol = source.find('\n', at);
    if (eol == std::string::npos) eol = source.size();
    const std::string_view line(source.data() + at, eol - at);
    std::size_t i = 0;
    auto skip_blanks = [&] {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    };
    auto word = [&](std::string_view w) {
      if (line.substr(i, w.size()) != w) return false;
      const std::size_t after = i + w.size();
      if (after < line.size() && (std::isalnum(static_cast<unsigned char>(line[after])) || line[after] == '_')) return false;
      i = after;
      return true;
    };
    skip_blanks();
    bool unroll = i < line.size() && line[i] == '#';
    if (unroll) {
      ++i;
      skip_blanks();
      unroll = word("pragma");
      skip_blanks();
      unroll = unroll && word("unroll");
    }
    if (!unroll) {
      out.append(line);
    } else {
      std::string count(line.substr(i));
      count.erase(std::remove_if(count.begin(), count.end(), [](char c) { return c == ' ' || c == '\t' || c == '(' || c == ')' || c == '\r'; }),
                  count.end());
      const bool number = !count.empty() && count.size() < 6 &&
                          std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; });
      out += "#pragma GCC unroll " + ((number && std::stoi(count) > 0) ? count : std::string("16"));
    }
    if (eol < source.size()) out += '\n';
    at = eol + 1;
  }
  return out;
}

/// The whole translation unit: rewritten source, then `extern "C" void <invoke_symbol>(void**)`
/// that calls `entry` with *static_cast<T_i*>(args[i]) for each parameter type, and the static
/// shared memory anchor.
inline std::string emu_translation_unit(const std::string& source, const std::string& entry,
                                        const std::vector<std::string>& param_types, const std::string& invoke_symbol) {
  std::string tu = "#line 1 \"" + std::string(kEmuSourceName) + "\"\n" + rewrite_unroll_pragmas(rewrite_dynamic_shared(source));
  tu += "\n#line 1 \"hone-emu-trampoline\"\n";
  tu += "extern \"C\" __attribute__((visibility(\"default\"))) void " + invoke_symbol + "(void** hone_args) {\n";
  tu += "  (void)hone_args;\n";
  for (std::size_t i = 0; i < param_types.size(); ++i)
    tu += "  using hone_p" + std::to_string(i) + " = " + param_types[i] + ";\n";
  tu += "  " + entry + "(";
  for (std::size_t i = 0; i < param_types.size(); ++i) {
    if (i) tu += ", ";
    tu += "*static_cast<hone_p" + std::to_string(i) + "*>(hone_args[" + std::to_string(i) + "])";
  }
  tu += ");\n}\n";
  tu += "extern \"C\" __attribute__((visibility(\"default\"))) void* " + std::string(kStaticSharedAnchor) +
        "() {\n  static thread_local char anchor;\n  return &anchor;\n}\n";
  return tu;
}

}  // namespace hone::emu
